import { createReadStream } from 'node:fs';
import { pipeline } from 'node:stream/promises';
import { parse } from 'csv-parse';

/**
 * The baseline of `npm run bench:dry-run`: csv-parse with its defaults over a file stream, each
 * record counted and dropped, nothing else (no decoding check, no line numbers, no objects).
 * Returns the number of records, the header included.
 */
export async function bareParse(path: string): Promise<number> {
  let records = 0;
  await pipeline(createReadStream(path), parse(), async (parsed: AsyncIterable<unknown>) => {
    for await (const _ of parsed) records++;
  });
  return records;
}
