import { stringify } from 'csv-stringify/sync';

/** One row → one CSV line (with its `\n`), as csv-stringify writes it. */
export type CsvLineFormatter = (row: readonly string[]) => string;

/**
 * csv-stringify's output, one row at a time, with a fast path for the rows that need no quoting.
 *
 * Why: csv-stringify allocates a context object and a pair per cell; on a million-row dry run it
 * was a tenth of the time. Most report lines hold no quote, delimiter, CR or LF in any cell, and
 * for those RFC 4180 (and csv-stringify) write the cells as they are, joined by the delimiter.
 * Every other row still goes through csv-stringify, which stays the one place that decides how
 * a cell is quoted. test/report/csv-line.test.ts checks, on arbitrary rows, that the output is
 * csv-stringify's byte for byte.
 */
export function csvLineFormatter(delimiter: string): CsvLineFormatter {
  // `quote_record_delimiter`: with `record_delimiter` set, csv-stringify would otherwise leave a
  // lone CR unquoted, and every CSV reader (csv-parse, spreadsheets) takes a CR as a line break.
  const format = { delimiter, record_delimiter: 'unix', quote_record_delimiter: true } as const;
  const special = new RegExp(`["\\r\\n${delimiter.replace(/[\\\]^-]/g, '\\$&')}]`);
  return (row) => {
    for (const cell of row) {
      if (special.test(cell)) return stringify([row], format);
    }
    return `${row.join(delimiter)}\n`;
  };
}
