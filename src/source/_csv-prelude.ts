import type { Delimiter } from '../config/mapping-schema.js';
import { detectDelimiter } from './_detect-delimiter.js';

/** `sep=;` and its line break: the first line Excel writes to name the delimiter. */
const SEP_LINE = /^sep=([^\r\n"])(?:\r\n|\n|\r)/;
const SEP_LINE_BYTES = 8;
/** `auto` looks this far for the end of the header line before it decides on what it has. */
const HEADER_SCAN_BYTES = 1024 * 1024;

/** What comes before the parser starts: the delimiter it uses, and where the header is. */
export interface CsvPrelude {
  /** The delimiter: the mapping's, the one a `sep=` line names, or the one `auto` found. */
  readonly delimiter: string;
  /** The line the header is on: 2 after a `sep=` line, else 1. */
  readonly firstLine: number;
  /** The UTF-8 bytes read to decide, without the `sep=` line: the parser reads them first. */
  readonly first: readonly Buffer[];
}

/**
 * Reads as much of the file's start as the delimiter needs. Excel writes `sep=;` as a first line
 * to name the delimiter, and reads it so: the line is skipped, its character is the delimiter,
 * and the header is on line 2. `auto` reads on until the header line has ended (or 1 MiB).
 */
export async function readPrelude(next: () => Promise<Buffer | undefined>, delimiter: Delimiter): Promise<CsvPrelude> {
  const first: Buffer[] = [];
  let start = await next();
  while (start !== undefined && start.length < SEP_LINE_BYTES) {
    const more = await next();
    if (more === undefined) break;
    start = Buffer.concat([start, more]);
  }
  const sep = start === undefined ? null : SEP_LINE.exec(start.subarray(0, SEP_LINE_BYTES).toString('latin1'));
  let firstLine = 1;
  if (sep !== null && start !== undefined) {
    start = start.subarray(sep[0].length);
    delimiter = sep[1] as Delimiter;
    firstLine = 2;
  }
  if (start !== undefined && start.length > 0) first.push(start);
  if (delimiter !== 'auto') return { delimiter, firstLine, first };
  if (first.length === 0) return { delimiter: ',', firstLine, first };
  let seen = first[0]!.length;
  let found = detectDelimiter(first[0]!);
  while (!found.complete && seen < HEADER_SCAN_BYTES) {
    const bytes = await next();
    if (bytes === undefined) break;
    first.push(bytes);
    seen += bytes.length;
    found = detectDelimiter(Buffer.concat(first));
  }
  return { delimiter: found.delimiter, firstLine, first };
}
