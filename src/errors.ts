/**
 * One error family for the whole tool (CONVENTIONS: csv-parse `CsvError`, undici `UND_ERR_*`).
 * Only fatal conditions throw; a bad row is data and becomes a report line instead.
 */
export type ErrorCode =
  | 'USAGE'
  | 'CONFIG_INVALID'
  | 'MAPPING_COLUMN_MISSING'
  | 'CSV_ENCODING'
  | 'CSV_DUPLICATE_HEADER'
  | 'CSV_READ'
  | 'OUTPUT'
  | 'HTTP_UNAUTHORIZED'
  | 'HTTP_PROTOCOL'
  | 'NETWORK'
  | 'LEDGER'
  | 'RESUME_REFUSED'
  | 'STATE_LOCKED';

export class EngageError extends Error {
  readonly code: ErrorCode;
  constructor(code: ErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.code = code;
    this.name = new.target.name;
  }
}

/** A mapping, job or option file that cannot be used: fails before row 1. */
export class ConfigError extends EngageError {}

/** A CSV file that cannot be read at all (encoding, duplicate header, I/O). */
export class SourceError extends EngageError {}

/** The service refused the credentials, or answered in a way the client cannot go on from. */
export class HttpError extends EngageError {
  readonly status: number | undefined;
  constructor(code: ErrorCode, message: string, status?: number, options?: { cause?: unknown }) {
    super(code, message, options);
    this.status = status;
  }
}

/** The run ledger refused an operation (lock held, resume against changed inputs, torn file). */
export class LedgerError extends EngageError {}
