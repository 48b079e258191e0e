import type { Delimiter } from '../config/mapping-schema.js';
import { CsvReader } from './_csv-reader.js';

export interface CsvSourceOptions {
  /** Absolute or cwd-relative path. */
  readonly path: string;
  /** Field delimiter, or `auto` to pick it from the header line. Default `,`. */
  readonly delimiter?: Delimiter;
  /** Any iconv-lite name (`utf-8`, `utf-16le`, `windows-1250`, `latin1`, ...). Default `utf-8`. */
  readonly encoding?: string;
}

/**
 * One record of the file after the header. `line` is the line on which the record STARTS, counted
 * as an editor does (the header is usually line 1; CRLF, LF and CR each end a line; blank lines
 * count but yield nothing). `fields` are the record's raw fields, for a rejects file that writes
 * the original columns back.
 */
export type SourceItem =
  | { readonly kind: 'row'; readonly line: number; readonly values: Record<string, string>; readonly fields: readonly string[] }
  | {
      readonly kind: 'malformed';
      readonly line: number;
      /** `file.csv line 7: <csv-parse's message>`, its own line numbers corrected to the file's. */
      readonly message: string;
      /** All fields for a wrong field count; for a quote error, the fields read before it; maybe []. */
      readonly fields: readonly string[];
      /** For a quote error: the record's text as it is in the file (without its line break), when under the record bound. */
      readonly raw?: string;
    };

export interface CsvSource {
  readonly path: string;
  readonly header: readonly string[];
  /** The delimiter actually used (resolved from 'auto'). */
  readonly delimiter: string;
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
    items: { [Symbol.asyncIterator]: () => reader.iterate() },
    close: () => reader.close(),
  };
}
