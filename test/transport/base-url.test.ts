import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/errors.js';
import { isLoopback, resolveBaseUrl } from '../../src/transport/base-url.js';

describe('resolveBaseUrl', () => {
  it.each([
    ['https://acme.example.com/api/public/', 'https://acme.example.com/api/public/'],
    ['https://acme.example.com/api/public', 'https://acme.example.com/api/public/'],
    ['  https://acme.example.com/api/public  ', 'https://acme.example.com/api/public/'],
    ['https://acme.example.com', 'https://acme.example.com/'],
    ['http://localhost:8080/api/public', 'http://localhost:8080/api/public/'],
    ['http://127.0.0.1:3000/api/public/', 'http://127.0.0.1:3000/api/public/'],
    ['http://127.8.9.10/api/public/', 'http://127.8.9.10/api/public/'],
    ['http://[::1]:3000/api/public', 'http://[::1]:3000/api/public/'],
  ])('%s → %s', (raw, expected) => {
    expect(resolveBaseUrl(raw).href).toBe(expected);
  });

  it('keeps a relative path inside the API prefix once the slash is added', () => {
    expect(new URL('events/', resolveBaseUrl('https://acme.example.com/api/public')).href).toBe(
      'https://acme.example.com/api/public/events/',
    );
  });

  it.each([
    [
      'http://acme.example.com/api/public/',
      'base URL http://acme.example.com/api/public/: refusing http:// to a non-loopback host, the API key would travel in clear; use https:// (http:// is allowed only for localhost, 127.0.0.0/8 and [::1])',
    ],
    [
      'http://10.0.0.5/api/public/',
      'base URL http://10.0.0.5/api/public/: refusing http:// to a non-loopback host, the API key would travel in clear; use https:// (http:// is allowed only for localhost, 127.0.0.0/8 and [::1])',
    ],
    [
      'http://localhost.evil.com/',
      'base URL http://localhost.evil.com/: refusing http:// to a non-loopback host, the API key would travel in clear; use https:// (http:// is allowed only for localhost, 127.0.0.0/8 and [::1])',
    ],
    [
      'ftp://acme.example.com/',
      'base URL: the scheme ftp: is not supported, only https:// (e.g. https://acme.example.com/api/public/)',
    ],
    // Credentials without a scheme read as the scheme `admin:`: the password is not shown.
    [
      'admin:p@ssw0rd@intranet/api',
      'base URL: the scheme admin: is not supported, only https:// (e.g. https://acme.example.com/api/public/)',
    ],
    [
      'acme.example.com/api/public',
      'base URL: not a valid absolute URL (expected e.g. https://acme.example.com/api/public/)',
    ],
    [
      'https://user:secret@acme.example.com/api/',
      'base URL https://acme.example.com/api/: must not contain a user name or password (the API key is read from ENGAGE_API_KEY or --api-key-file)',
    ],
    [
      'https://acme.example.com/api/?token=secret',
      'base URL https://acme.example.com/api/: must not contain a query (?…) or fragment (#…)',
    ],
  ])('refuses %s', (raw, message) => {
    let error: unknown;
    try {
      resolveBaseUrl(raw);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).message).toBe(message);
    expect((error as ConfigError).message).not.toContain('secret');
  });
});

describe('isLoopback', () => {
  it.each([
    ['localhost', true],
    ['LOCALHOST', true],
    ['127.0.0.1', true],
    ['127.255.255.254', true],
    ['[::1]', true],
    ['[::ffff:7f00:1]', true],
    ['128.0.0.1', false],
    ['10.0.0.1', false],
    ['[::2]', false],
    ['localhost.example.com', false],
    ['example.com', false],
    ['[::ffff:a00:1]', false],
  ])('%s → %s', (host, expected) => {
    expect(isLoopback(host)).toBe(expected);
  });

  it('agrees with the URL parser on shorthand loopback forms', () => {
    expect(isLoopback(new URL('http://127.1/').hostname)).toBe(true);
    expect(isLoopback(new URL('http://[::ffff:127.0.0.1]/').hostname)).toBe(true);
  });
});
