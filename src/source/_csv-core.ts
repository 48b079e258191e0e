import { Parser, type CsvError, type Info } from 'csv-parse';

/**
 * The synchronous parser at the heart of csv-parse (`lib/api/index.js`, its pure core: state in,
 * records out, no I/O), without the stream shell around it. csv-parse 6 does not export it by
 * path, but every `Parser` carries it as `parser.api`; csv-parse is pinned (6.2.1) and
 * test/source/csv-core.test.ts checks this shape.
 *
 * Why not the stream: per record, the stream pays a Readable push and read, and the only public
 * way to learn where a record ended (`on_record` or `info: true`) builds two context objects per
 * record: measured on 1,000,000 rows, 4.1 s bare and 8.7 s with `on_record`. Here, `push` is
 * called synchronously at the end of each record, while `info.bytes` still says where it ended.
 */
export interface CsvCore {
  /** Feed bytes (`undefined` with `end` at the end); `push` gets each record as it completes. */
  parse(buf: Buffer | undefined, end: boolean, push: (record: string[]) => void, close: () => void): Error | undefined;
  /** `bytes`: offset just after the last record's line break (or of the last field seen). */
  readonly info: Info;
  readonly state: { readonly record: readonly string[]; quoting: boolean };
}

export interface CoreOptions {
  readonly delimiter: string;
  /**
   * A quote error: csv-parse drops the record and goes on with the next one
   * (`skip_records_with_error`); called synchronously, possibly more than once per record.
   */
  readonly onSkip: (error: CsvError) => void;
}

export function createCsvCore(options: CoreOptions): CsvCore {
  const parser = new Parser({
    delimiter: options.delimiter,
    // All three, not the first one seen: a stray LF in a CRLF file still ends its line, as it does
    // in an editor, so line numbers stay what the user sees.
    record_delimiter: ['\r\n', '\n', '\r'],
    // Field counts are checked by the reader, which keeps the record to report it.
    relax_column_count: true,
    skip_empty_lines: true,
    skip_records_with_error: true,
    on_skip: (error) => {
      if (error !== undefined) options.onSkip(error);
      return undefined;
    },
  });
  const core = (parser as unknown as { api?: Partial<CsvCore> }).api;
  if (
    typeof core?.parse !== 'function' ||
    typeof core.info !== 'object' ||
    !Array.isArray(core.state?.record) ||
    typeof core.state.quoting !== 'boolean'
  ) {
    throw new Error(
      'csv-parse no longer exposes its parser core as `Parser#api`: src/source/_csv-core.ts needs updating',
    );
  }
  return core as CsvCore;
}
