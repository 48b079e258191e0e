import type { Delimiter } from '../config/mapping-schema.js';
import { CsvReader } from './_csv-reader.js';
import type { SourceItem } from './source-item.js';

export type { SourceItem } from './source-item.js';

export interface CsvSourceOptions {
  /** Absolute or cwd-relative path. */
  readonly path: string;
  /** Field delimiter, or `auto` to pick it from the header line. Default `,`. */
  readonly delimiter?: Delimiter;
  /** Any iconv-lite name (`utf-8`, `utf-16le`, `windows-1250`, `latin1`, ...). Default `utf-8`. */
  readonly encoding?: string;
}

export interface CsvSource {
  readonly path: string;
  readonly header: readonly string[];
  /** The delimiter actually used (resolved from 'auto'). */
  readonly delimiter: string;
  /** Whether the file began with Excel's `sep=` line, which named the delimiter. */
  readonly sepLine: boolean;
  /**
   * One item per record after the header, in file order; iterate once. Throws SourceError
   * (CSV_ENCODING, CSV_READ) if the file turns out to be undecodable or unreadable mid-way; the
   * items before it have been yielded.
   */
  readonly items: AsyncIterable<SourceItem>;
  /** Stop reading and release the file (for --limit and aborts). Safe to call more than once. */
  close(): void;
}

/**
 * Opens a CSV file and reads up to its header, streaming (the file is never held in memory).
 * Throws SourceError before any row: CSV_READ (missing, unreadable, empty, header unreadable),
 * CSV_ENCODING (unknown encoding, bytes invalid in it, a BOM of another encoding),
 * CSV_DUPLICATE_HEADER (two columns with one name, or a column without a name).
 */
export async function openCsv(options: CsvSourceOptions): Promise<CsvSource> {
  const reader = await CsvReader.open(options.path, options.encoding ?? 'utf-8', options.delimiter ?? ',');
  return {
    path: options.path,
    header: reader.header,
    delimiter: reader.delimiter,
    sepLine: reader.sepLine,
    items: { [Symbol.asyncIterator]: () => reader.iterate() },
    close: () => reader.close(),
  };
}
