import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readApiKey } from '../../src/cli/credentials.js';
import { ConfigError } from '../../src/errors.js';
import { tmpTree } from '../helpers/tmp.js';

const KEY = `canary${'k'.repeat(58)}`;

const refusal = (fn: () => unknown): ConfigError => {
  try {
    fn();
  } catch (error) {
    if (error instanceof ConfigError) return error;
    throw error;
  }
  throw new Error('expected a ConfigError');
};

describe('readApiKey', () => {
  it('reads the key from the file, trimmed, or from ENGAGE_API_KEY', () => {
    const dir = tmpTree({ key: `${KEY}\n` });
    expect(readApiKey({}, 'key', dir)).toBe(KEY);
    expect(readApiKey({ ENGAGE_API_KEY: ` ${KEY} ` }, undefined, dir)).toBe(KEY);
  });

  it.each([
    ['a note on a second line', `${KEY}\nrotated 2026-11-01 by ops\n`, 'a line break after its first 64 characters'],
    ['a space inside', `${KEY.slice(0, 10)} ${KEY.slice(10)}`, 'a space after its first 10 characters'],
    [
      'a non-ASCII character',
      `${KEY.slice(0, 5)}é${KEY.slice(5)}`,
      'a character that is not visible ASCII after its first 5 characters',
    ],
  ])('refuses a key file with %s, saying where, never showing the key', (_name, content, where) => {
    const dir = tmpTree({ key: content });
    const error = refusal(() => readApiKey({}, 'key', dir));
    expect(error.message).toBe(
      `--api-key-file ${join(dir, 'key')}: the API key holds ${where}; it must be the key alone, on one line`,
    );
    expect(error.message).not.toContain('canary');
  });

  it('never repeats a missing key file named like a key (the key pasted in place of its path); a path it names', () => {
    const dir = tmpTree();
    const pasted = refusal(() => readApiKey({}, KEY, dir));
    expect(pasted.message).toBe(
      '--api-key-file (the name given is not repeated: with neither a dot nor a slash, it may be the key itself; give the path of a file that holds the key): cannot read the file (ENOENT)',
    );
    expect(pasted.message).not.toContain('canary');
    expect(refusal(() => readApiKey({}, 'secrets/engage.key', dir)).message).toBe(
      `--api-key-file ${join(dir, 'secrets/engage.key')}: cannot read the file (ENOENT)`,
    );
  });

  it('refuses the same from ENGAGE_API_KEY', () => {
    const error = refusal(() => readApiKey({ ENGAGE_API_KEY: `${KEY}\tx` }, undefined, '/'));
    expect(error.message).toBe(
      'ENGAGE_API_KEY: the API key holds a space after its first 64 characters; it must be the key alone, on one line',
    );
  });
});
