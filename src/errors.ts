/**
 * One error family for the whole tool. Only fatal conditions throw; a bad row is data and
 * becomes a report line instead. Each class owns its codes, and each code has one exit code,
 * in the one table below.
 */

/** Exit codes of every command. Cron jobs branch on these. */
export const EXIT = {
  /** Every row valid (dry run) or ok (import). */
  OK: 0,
  /** Some rows invalid, failed, skipped, unknown or not sent: read the report. */
  ROWS_NOT_OK: 1,
  /** Usage or configuration error: nothing was sent. */
  USAGE: 2,
  /** The run was stopped (401, the API unreachable or answering wrongly, a pause too long, the ledger failing): rows not sent are `not_sent`, resume continues. */
  ABORTED: 3,
  /** A bug in the tool: the message and stack go to stderr. */
  INTERNAL: 70,
  /** Stopped by SIGINT / SIGTERM (128 + signal number, as shells report it). */
  SIGINT: 130,
  SIGTERM: 143,
} as const;

/** Every code, with the exit code of a command that stops on it. */
export const EXIT_CODE_OF = {
  USAGE: EXIT.USAGE,
  CONFIG_INVALID: EXIT.USAGE,
  MAPPING_COLUMN_MISSING: EXIT.USAGE,
  OUTPUT: EXIT.USAGE,
  CSV_ENCODING: EXIT.USAGE,
  CSV_DUPLICATE_HEADER: EXIT.USAGE,
  CSV_READ: EXIT.USAGE,
  HTTP_UNAUTHORIZED: EXIT.ABORTED,
  HTTP_PROTOCOL: EXIT.ABORTED,
  HTTP_THROTTLED: EXIT.ABORTED,
  NETWORK: EXIT.ABORTED,
  // Refused before anything was sent (a damaged or foreign ledger, a resume against other inputs, a held lock).
  LEDGER: EXIT.USAGE,
  RESUME_REFUSED: EXIT.USAGE,
  STATE_LOCKED: EXIT.USAGE,
  // The sync state of an incremental job refused before anything was sent: a newer format, a
  // damaged file, another target, an export that does not read back, no state where one is named.
  SYNC_STATE: EXIT.USAGE,
} as const satisfies Record<string, number>;

export type ErrorCode = keyof typeof EXIT_CODE_OF;

export type ConfigErrorCode = 'USAGE' | 'CONFIG_INVALID' | 'MAPPING_COLUMN_MISSING' | 'OUTPUT';
export type SourceErrorCode = 'CSV_ENCODING' | 'CSV_DUPLICATE_HEADER' | 'CSV_READ';
export type HttpErrorCode = 'HTTP_UNAUTHORIZED' | 'HTTP_PROTOCOL' | 'HTTP_THROTTLED' | 'NETWORK';
export type LedgerErrorCode = 'LEDGER' | 'RESUME_REFUSED' | 'STATE_LOCKED';
export type SyncErrorCode = 'SYNC_STATE';

export class EngageError<C extends ErrorCode = ErrorCode> extends Error {
  readonly code: C;
  constructor(code: C, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.code = code;
    this.name = new.target.name;
  }

  /** What a command that stops on this error exits with. */
  get exitCode(): number {
    return EXIT_CODE_OF[this.code];
  }
}

/** A mapping, job or option file that cannot be used, or an output that cannot be written: fails before row 1. */
export class ConfigError extends EngageError<ConfigErrorCode> {}

/** A CSV file that cannot be read at all (encoding, duplicate header, I/O). */
export class SourceError extends EngageError<SourceErrorCode> {}

/** The service refused the credentials, or answered (or failed to) in a way the run cannot go on from. */
export class HttpError extends EngageError<HttpErrorCode> {
  readonly status: number | undefined;
  constructor(code: HttpErrorCode, message: string, status?: number, options?: { cause?: unknown }) {
    super(code, message, options);
    this.status = status;
  }
}

/** The run ledger refused an operation (lock held, resume against changed inputs, torn file). */
export class LedgerError extends EngageError<LedgerErrorCode> {}

/** The sync state of an incremental job cannot be used (newer format, damaged, another target): nothing is sent. */
export class SyncError extends EngageError<SyncErrorCode> {}

/**
 * How a row's failure is described when nothing is thrown: whichever way the row went (its own
 * request, a bulk import, or not at all), a row that did not end `ok` is described in this one
 * shape, and `failureLine` (src/report/failure-line.ts) turns it into the row's report line.
 * - `failed`: the API refused it; not applied (the row goes to the rejects, to be fixed and sent again).
 * - `unknown`: it may have been applied; it is never resent silently (`resume --resend-unknown`).
 * - `not_sent`: it did not reach the API, unless `mayHaveApplied`: then it is reported `unknown`.
 */
export type FailureKind = 'failed' | 'unknown' | 'not_sent';

export interface RowFailure<K extends FailureKind = FailureKind> {
  readonly kind: K;
  /** Why, for the report's message column (a bulk row's line also names its import). */
  readonly message: string;
  /** The HTTP status of the answer that decided it, when an answer did. */
  readonly status?: number | undefined;
  /** The bulk import whose report (or wait) decided it, when its id is known. */
  readonly importId?: string | undefined;
  /**
   * `not_sent` only: an earlier attempt of it got a 5xx or lost its answer before the run
   * stopped, so it may exist already and is reported `unknown`.
   */
  readonly mayHaveApplied?: boolean | undefined;
}
