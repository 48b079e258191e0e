import { ConfigError } from '../errors.js';

/**
 * The API root from `--base-url` / ENGAGE_BASE_URL, checked once before anything is sent.
 *
 * - A missing trailing `/` is added: every path is resolved relative to the root (see docs/api-contract.md:
 *   "paths end with a trailing slash"), and `new URL('events/', 'https://h/api/public')` would
 *   drop the `public` segment.
 * - `http://` is refused unless the host is a loopback address: the API key travels in the
 *   `Authorization` header of every request and must not cross a network in clear.
 * - Credentials, a query or a fragment in the address are refused: they would be dropped or
 *   sent somewhere unexpected when paths are resolved against the root.
 *
 * Error messages show only the origin and path, never a query (which could hold a secret).
 */
export function resolveBaseUrl(raw: string): URL {
  let url: URL;
  try {
    url = new URL(raw.trim());
  } catch {
    throw new ConfigError(
      'USAGE',
      'base URL: not a valid absolute URL (expected e.g. https://acme.example.com/api/public/)',
    );
  }
  // Another scheme says nothing of where the rest of the text ends (`user:password@host/…` reads
  // as the scheme `user:`): only the scheme is shown.
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    throw new ConfigError(
      'USAGE',
      `base URL: the scheme ${url.protocol} is not supported, only https:// (e.g. https://acme.example.com/api/public/)`,
    );
  }
  const shown = `${url.protocol}//${url.host}${url.pathname}`;
  if (url.username !== '' || url.password !== '') {
    throw new ConfigError(
      'USAGE',
      `base URL ${shown}: must not contain a user name or password (the API key is read from ENGAGE_API_KEY or --api-key-file)`,
    );
  }
  if (url.search !== '' || url.hash !== '') {
    throw new ConfigError('USAGE', `base URL ${shown}: must not contain a query (?…) or fragment (#…)`);
  }
  if (url.protocol === 'http:' && !isLoopback(url.hostname)) {
    throw new ConfigError(
      'USAGE',
      `base URL ${shown}: refusing http:// to a non-loopback host, the API key would travel in clear; use https:// (http:// is allowed only for localhost, 127.0.0.0/8 and [::1])`,
    );
  }
  if (!url.pathname.endsWith('/')) url.pathname = `${url.pathname}/`;
  return url;
}

/**
 * `hostname` as the WHATWG URL parser gives it: IPv4 already normalised (`127.1` → `127.0.0.1`),
 * IPv6 in brackets and compressed (`[::1]`, `[::ffff:7f00:1]` for a mapped 127.0.0.1).
 */
export function isLoopback(hostname: string): boolean {
  const host = hostname.toLowerCase().replace(/\.$/, '');
  if (host === 'localhost') return true;
  if (/^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host)) return true;
  if (host === '[::1]') return true;
  // IPv4-mapped IPv6 of 127.0.0.0/8: the first hextet after ffff is 0x7f00..0x7fff.
  return /^\[::ffff:7f[0-9a-f]{2}:[0-9a-f]{1,4}\]$/.test(host);
}
