import { open, type FileHandle } from 'node:fs/promises';
import { DEFAULTS } from '../defaults.js';
import { SourceError } from '../errors.js';
import { openCsv } from '../source/csv-source.js';
import { detectEncoding, SNIFF_BYTES, type DetectedEncoding } from './detect-encoding.js';

/** The first rows of a CSV file, read with the tool's own reader, and how it was read. */
export interface Sample {
  readonly header: readonly string[];
  readonly delimiter: string;
  /** The delimiter was named by a `sep=` line before the header (as Excel writes it), not guessed. */
  readonly sepLine: boolean;
  readonly encoding: DetectedEncoding;
  /** Rows that parsed, by column name, in file order. */
  readonly rows: readonly Readonly<Record<string, string>>[];
  /** Records of the sample the parser could not read (wrong field count, quotes). */
  readonly malformed: number;
}

export interface SampleOptions {
  /** Rows read. Default 1,000. */
  readonly size?: number | undefined;
  /** An encoding given by the user instead of the detected one. */
  readonly encoding?: string | undefined;
}

/**
 * Reads the header and the first `size` rows exactly as `validate` and `import` will: same
 * decoder, same delimiter detection (`auto`), same BOM handling. So whatever the guesses are
 * based on is what the run will see.
 */
export async function readSample(path: string, options: SampleOptions = {}): Promise<Sample> {
  const encoding: DetectedEncoding =
    options.encoding !== undefined
      ? { encoding: options.encoding, why: 'given with --encoding', guessed: false }
      : detectEncoding(await firstBytes(path));
  const source = await openCsv({ path, delimiter: 'auto', encoding: encoding.encoding });
  const rows: Record<string, string>[] = [];
  let malformed = 0;
  const size = options.size ?? DEFAULTS.initSample;
  try {
    for await (const item of source.items) {
      if (item.kind === 'row') rows.push(item.values);
      else malformed++;
      if (rows.length + malformed >= size) break;
    }
  } finally {
    source.close();
  }
  return { header: source.header, delimiter: source.delimiter, sepLine: source.sepLine, encoding, rows, malformed };
}

async function firstBytes(path: string): Promise<Uint8Array> {
  let file: FileHandle;
  try {
    file = await open(path, 'r');
  } catch (error) {
    throw new SourceError(
      'CSV_READ',
      `${path}: cannot open the file (${(error as NodeJS.ErrnoException).code ?? 'unknown error'})`,
      { cause: error },
    );
  }
  try {
    const buffer = Buffer.alloc(SNIFF_BYTES);
    const { bytesRead } = await file.read(buffer, 0, SNIFF_BYTES, 0);
    return buffer.subarray(0, bytesRead);
  } finally {
    await file.close();
  }
}
