import type { ResourceName } from '../config/mapping-schema.js';

/**
 * What happened to one input record.
 * - `valid` / `invalid`: dry run (local checks only); `invalid` also in a live run (never sent).
 * - `ok`, `failed` (the API said no), `unknown` (the request may have been applied; not resent),
 *   `not_sent` (the run stopped before this row), `skipped` (a parent row failed).
 * - Incremental runs (`--incremental`): `new` and `changed` (the preview's word for a valid row
 *   that will be sent), `unchanged`, `already_sent` and `superseded` (not sent: src/sync/classify.ts).
 */
export const ROW_STATUSES = [
  'valid',
  'invalid',
  'ok',
  'failed',
  'unknown',
  'not_sent',
  'skipped',
  'new',
  'changed',
  'unchanged',
  'already_sent',
  'superseded',
] as const;
export type RowStatus = (typeof ROW_STATUSES)[number];

/**
 * The statuses of a live run's rows that did not end well: any of them makes the exit code 1
 * (`--max-failed` counts them). The others are success: `ok`, and the rows an incremental run has
 * no need to send (`unchanged`, `already_sent`, `superseded`).
 */
export const NOT_OK_STATUSES = [
  'failed',
  'invalid',
  'unknown',
  'skipped',
  'not_sent',
] as const satisfies readonly RowStatus[];

/** How many of a run's rows did not end well (see NOT_OK_STATUSES). */
export const rowsNotOk = (totals: Readonly<Record<RowStatus, number>>): number =>
  NOT_OK_STATUSES.reduce((n, s) => n + totals[s], 0);

/** One line of the report CSV: one per input record, in input order. */
export interface ReportLine {
  /** The CSV file as the user named it in the mapping (relative to the cwd when possible). */
  readonly file: string;
  /** Line on which the record starts (the header is line 1). */
  readonly line: number;
  readonly resource: ResourceName;
  readonly key: string;
  readonly status: RowStatus;
  readonly http_status?: number | undefined;
  /** Id the API answered for a created or updated record. */
  readonly id?: string | undefined;
  readonly message?: string | undefined;
}

export const REPORT_COLUMNS = ['file', 'line', 'resource', 'key', 'status', 'http_status', 'id', 'message'] as const;
