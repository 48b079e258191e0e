import type { RowValues } from '../mapping/field-value.js';
/**
 * One record of the file after the header. `line` is the line on which the record STARTS, counted
 * as an editor does (the header is usually line 1; CRLF, LF and CR each end a line; blank lines
 * count but yield nothing). `fields` are the record's raw fields, for a rejects file that writes
 * the original columns back.
 */
export type SourceItem =
  | { readonly kind: 'row'; readonly line: number; readonly values: RowValues; readonly fields: readonly string[] }
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
