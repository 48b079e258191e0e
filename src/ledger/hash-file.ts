import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { SourceError } from '../errors.js';
import { ioReason, refuseIrregularInput } from '../source/regular-file.js';

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
    // An input that is not there, or not readable: said as the reader says it, a usage error.
    throw new SourceError('CSV_READ', `${path}: ${ioReason(error, 'cannot read the file')}`, { cause: error });
  }
  return { size, sha256: hash.digest('hex') };
}
