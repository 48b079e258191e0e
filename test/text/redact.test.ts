import { describe, expect, it } from 'vitest';
import { redact } from '../../src/text/redact.js';

describe('redact', () => {
  it('replaces every occurrence of each secret, and skips an empty or missing one (an empty string is in every text)', () => {
    const key = 'k3y-0123456789';
    expect(
      redact(`Token ${key} and again ${key}; https://hooks.example.com/T0/SECRET`, [
        key,
        undefined,
        '',
        'https://hooks.example.com/T0/SECRET',
      ]),
    ).toBe('Token [redacted] and again [redacted]; [redacted]');
    expect(redact('nothing to hide', [''])).toBe('nothing to hide');
  });
});
