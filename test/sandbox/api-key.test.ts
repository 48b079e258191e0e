import { describe, expect, it } from 'vitest';
import { authenticate, checkApiKey, generateApiKey } from '../../src/sandbox/api-key.js';

const KEY = 'a'.repeat(64);
const key = Buffer.from(KEY);

describe('authenticate (R-AUTH-1: Authorization: Token <64-character key>)', () => {
  it.each([
    [`Token ${KEY}`, undefined],
    [`token ${KEY}`, undefined],
    [`  Token   ${KEY} `, undefined],
    [undefined, 'Authentication credentials were not provided.'],
    ['', 'Authentication credentials were not provided.'],
    [`Bearer ${KEY}`, 'Authentication credentials were not provided.'],
    [KEY, 'Authentication credentials were not provided.'],
    ['Token', 'Invalid token header. No credentials provided.'],
    [`Token ${KEY} extra`, 'Invalid token header. Token string should not contain spaces.'],
    [`Token ${'b'.repeat(64)}`, 'Invalid token.'],
    [`Token ${KEY.slice(1)}`, 'Invalid token.'],
    [`Token ${KEY}a`, 'Invalid token.'],
  ])('%j → %s', (header, message) => {
    expect(authenticate(header, key)).toBe(message);
  });
});

describe('API keys', () => {
  it('generates 64 hexadecimal characters, a new one each time', () => {
    const a = generateApiKey();
    expect(a).toMatch(/^[0-9a-f]{64}$/);
    expect(generateApiKey()).not.toBe(a);
  });

  it('refuses a key that is not 64 visible characters, without printing it', () => {
    expect(() => checkApiKey(KEY)).not.toThrow();
    expect(() => checkApiKey('SECRET-short')).toThrow(
      'the sandbox API key must be 64 visible ASCII characters without spaces (got 12 characters)',
    );
    expect(() => checkApiKey(`${'a'.repeat(63)} `)).toThrow(RangeError);
  });
});
