import type { CsvError } from 'csv-parse';

/**
 * The words of a malformed record's message: csv-parse's reason, with our line numbers and the
 * column as a user counts it, and every line the record spans named.
 */

/** csv-parse counts lines its own way (where a record ends, a quoted CRLF twice): put ours in. */
export function relined(message: string, line: number): string {
  return line > 0 ? message.replace(/\b(at|on) line \d+/, `$1 line ${line}`) : message;
}

/**
 * csv-parse numbers fields from 0 (`a quote is found on field 2` is the third column): say it
 * as a user counts, with the header's name when there is one (`header` is undefined while the
 * header itself is read). A closing-quote error names no field at all: it gets the column too.
 */
export function withColumn(error: CsvError, header: readonly string[] | undefined): string {
  const index = (error as { column?: unknown }).column;
  if (typeof index !== 'number') return error.message;
  const name = header?.[index];
  const column = `column ${index + 1}${name === undefined ? '' : ` (${JSON.stringify(name)})`}`;
  if (/ on field \S+ at line/.test(error.message))
    return error.message.replace(/ on field \S+ at line/, ` in ${column} at line`);
  return error.message.replace(
    /^Invalid Closing Quote: (.*?) at line/,
    `Invalid Closing Quote: $1 in ${column} at line`,
  );
}

/**
 * csv-parse's words for what it would have said of a record over the bound, had it read it
 * (CSV_QUOTE_NOT_CLOSED, CSV_MAX_RECORD_SIZE).
 */
export function overlongReason(line: number, unclosedQuoteLine: number, maxRecordBytes: number): string {
  return unclosedQuoteLine > 0
    ? `Quote Not Closed: the parsing is finished with an opening quote at line ${unclosedQuoteLine}`
    : `Max Record Size: record exceed the maximum number of tolerated bytes of ${maxRecordBytes} on line ${line}`;
}

/**
 * `file line 7: reason`. A quote error can make the parser read the lines after it as part of
 * the same record (`line` to `lastLine`): then the message names them all, so that no line of the
 * file goes unmentioned.
 */
export function malformedMessage(name: string, line: number, lastLine: number, reason: string): string {
  if (lastLine <= line) return `${name} line ${line}: ${reason}`;
  return `${name} lines ${line}–${lastLine}: ${reason} (the parser read lines ${line}–${lastLine} as this one record: check its quotes)`;
}
