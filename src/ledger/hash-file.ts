import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { LedgerError } from '../errors.js';
import { refuseIrregularInput } from '../source/regular-file.js';

/**
 * Size and SHA-256 of a file, read as a stream so a 2 GB export never sits in memory. The run
 * identity stores both: the size makes "what changed" readable, the hash catches an edit that
 * keeps the size.
 */
export async function hashFile(path: string): Promise<{ size: number; sha256: string }> {
  await refuseIrregularInput(path);
  const hash = createHash('sha256');
  let size = 0;
  try {
    for await (const chunk of createReadStream(path) as AsyncIterable<Buffer>) {
      hash.update(chunk);
      size += chunk.length;
    }
  } catch (error) {
    const reason = (error as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : (error as Error).message;
    throw new LedgerError('LEDGER', `cannot read ${path} to fingerprint the run: ${reason}`, { cause: error });
  }
  return { size, sha256: hash.digest('hex') };
}
