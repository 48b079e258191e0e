/**
 * The sandbox's one API key and the `Authorization: Token <key>` check of docs/api-contract.md R-AUTH-1, with the
 * 401 messages of the framework's token authentication. The key is compared in constant time and
 * never appears in a message.
 */
import { randomBytes, timingSafeEqual } from 'node:crypto';
import { AUTH_MESSAGES } from './errors.js';

/** R-AUTH-2: "a 64-character API key". */
export const API_KEY_LENGTH = 64;

/** A fresh random key: 64 hexadecimal characters (256 bits). */
export function generateApiKey(): string {
  return randomBytes(API_KEY_LENGTH / 2).toString('hex');
}

/** Throws when `key` cannot be a key of the API: 64 visible ASCII characters, no spaces. */
export function checkApiKey(key: string): void {
  if (key.length !== API_KEY_LENGTH || !/^[\x21-\x7e]+$/.test(key)) {
    // Only the length is reported: the key itself must never be printed.
    throw new RangeError(
      `the sandbox API key must be ${API_KEY_LENGTH} visible ASCII characters without spaces (got ${key.length} characters)`,
    );
  }
}

/** Undefined when `header` carries the key; else the 401 message (R-AUTH-3: missing or wrong credentials). */
export function authenticate(header: string | undefined, key: Buffer): string | undefined {
  if (header === undefined) return AUTH_MESSAGES.missing;
  const parts = header.trim().split(/\s+/);
  if (parts[0]?.toLowerCase() !== 'token') return AUTH_MESSAGES.missing;
  if (parts.length === 1) return AUTH_MESSAGES.noCredentials;
  if (parts.length > 2) return AUTH_MESSAGES.spaces;
  const given = Buffer.from(parts[1]!, 'utf8');
  return given.length === key.length && timingSafeEqual(given, key) ? undefined : AUTH_MESSAGES.invalid;
}
