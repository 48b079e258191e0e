import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { SourceError } from '../../src/errors.js';
import { hashFile } from '../../src/ledger/index.js';
import { tmpTree } from '../helpers/tmp.js';

describe('hashFile', () => {
  it.each([
    ['an empty file', Buffer.alloc(0)],
    ['a short text', Buffer.from('row,customer\nR-1,C-1\n')],
    // Several stream chunks (64 KiB each): the hash must cover all of them, in order.
    ['a 1 MB file', Buffer.from(Array.from({ length: 1_000_000 }, (_, i) => i % 251))],
  ])('gives the size and SHA-256 of %s', async (_name, content) => {
    const dir = tmpTree({ 'data.csv': content });
    expect(await hashFile(join(dir, 'data.csv'))).toEqual({
      size: content.length,
      sha256: createHash('sha256').update(content).digest('hex'),
    });
  });

  it('says which file is missing, in the words the reader uses (a usage error, exit 2)', async () => {
    const dir = tmpTree();
    const error = await hashFile(join(dir, 'gone.csv')).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SourceError);
    expect((error as SourceError).message).toBe(`${join(dir, 'gone.csv')}: file not found`);
    expect((error as SourceError).exitCode).toBe(2);
  });
});
