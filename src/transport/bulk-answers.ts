/**
 * The answers of the bulk CSV import endpoints, read tolerantly. The upload answers
 * `{"success": true, "data": {"import_id": "<uuid>"}}`; an older version of the documentation
 * answered the whole status object instead: both are accepted (and a bare object without the
 * `data` envelope). `GET /import/status/` answers `{"success": true, "data": {id, status,
 * total_count, succeeded, failed, started_at, finished_at, author, rows_with_errors}}`. Only
 * `finished` is a published status and the shape of one `rows_with_errors` element is not
 * published, so anything unexpected is kept as it came (see docs/conformance.md, "Bulk CSV
 * imports").
 */
import { renderErrorBody } from './error-body.js';

/** Where an import stands, as far as the client can tell. */
export type ImportState = 'running' | 'finished' | 'failed';

/** One failed row as the service listed it; any part may be missing. */
export interface ListedRowError {
  /** The row number as the service gave it (this service: the header is row 1); undefined when the element has none. */
  readonly row: number | undefined;
  /** The row's values as the service echoed them (`data`), when it did. */
  readonly data: Readonly<Record<string, unknown>> | undefined;
  /** The service's words for the failure (`field: message; …`); the element as JSON when it says nothing readable. */
  readonly message: string;
}

export interface ImportStatusReport {
  readonly importId: string;
  /** The status text as answered (`finished`, or an unpublished running or failure name). */
  readonly status: string;
  readonly state: ImportState;
  readonly totalCount: number | undefined;
  readonly succeeded: number | undefined;
  readonly failed: number | undefined;
  /** At most the first 50 failed rows (docs/api-contract.md R-BULK-9). */
  readonly rowsWithErrors: readonly ListedRowError[];
}

/** Status names read as a whole import that ended without finishing; any other name but `finished` is read as still running. */
const FAILURE_STATUSES = new Set(['failed', 'failure', 'error', 'errored', 'cancelled', 'canceled', 'aborted']);

/** Keys an element may carry its row number under (this sandbox: `row`). */
const ROW_KEYS = ['row', 'row_number', 'rowNumber', 'line', 'line_number', 'row_index'];
/** Keys an element may carry the row's values under (this sandbox: `data`). */
const DATA_KEYS = ['data', 'row_data', 'values', 'fields'];
/** Keys an element may carry its messages under (this sandbox: `errors`). */
const ERROR_KEYS = ['errors', 'error', 'messages', 'message', 'detail', 'reason'];

/**
 * The import id of an upload's 2xx answer, and its status when the answer was the whole status
 * object (the older documented shape). Undefined when no id can be found.
 */
export function parseUploadAnswer(
  body: unknown,
): { readonly importId: string; readonly status: ImportStatusReport | undefined } | undefined {
  const data = envelope(body);
  if (data === undefined) return undefined;
  const id = textOf(data.import_id) ?? textOf(data.id);
  if (id === undefined) return undefined;
  return { importId: id, status: 'status' in data ? parseStatusObject(data, id) : undefined };
}

/** The status of one import from a `GET /import/status/?import_id=` answer; undefined when the answer is not a status object. */
export function parseImportStatus(body: unknown, importId: string): ImportStatusReport | undefined {
  const data = envelope(body);
  if (data === undefined || !('status' in data)) return undefined;
  return parseStatusObject(data, importId);
}

function parseStatusObject(data: Record<string, unknown>, fallbackId: string): ImportStatusReport {
  const status = textOf(data.status) ?? '';
  const normalised = status.trim().toLowerCase();
  const listed = Array.isArray(data.rows_with_errors) ? data.rows_with_errors : [];
  return {
    importId: textOf(data.id) ?? textOf(data.import_id) ?? fallbackId,
    status,
    state: normalised === 'finished' ? 'finished' : FAILURE_STATUSES.has(normalised) ? 'failed' : 'running',
    totalCount: countOf(data.total_count),
    succeeded: countOf(data.succeeded),
    failed: countOf(data.failed),
    rowsWithErrors: listed.map(parseListedRow),
  };
}

/** One `rows_with_errors` element: a row number, the echoed values and a message, each when present. */
export function parseListedRow(element: unknown): ListedRowError {
  if (!isRecord(element))
    return {
      row: undefined,
      data: undefined,
      message: typeof element === 'string' ? element : (JSON.stringify(element) ?? ''),
    };
  const rowKey = ROW_KEYS.find((k) => countOf(element[k]) !== undefined);
  const dataKey = DATA_KEYS.find((k) => isRecord(element[k]));
  const errorKey = ERROR_KEYS.find((k) => element[k] !== undefined && element[k] !== null);
  const rendered =
    errorKey === undefined
      ? undefined
      : typeof element[errorKey] === 'string'
        ? (element[errorKey] as string)
        : renderErrorBody(element[errorKey]);
  return {
    row: rowKey === undefined ? undefined : countOf(element[rowKey]),
    data: dataKey === undefined ? undefined : (element[dataKey] as Record<string, unknown>),
    message: rendered !== undefined && rendered !== '' ? rendered : JSON.stringify(element),
  };
}

/** `body.data` when it is an object, else the body itself when it is one. */
function envelope(body: unknown): Record<string, unknown> | undefined {
  if (!isRecord(body)) return undefined;
  if (isRecord(body.data)) return body.data;
  return body;
}

function textOf(value: unknown): string | undefined {
  if (typeof value === 'string' && value.trim() !== '') return value;
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  return undefined;
}

/** A whole number ≥ 0, from a number or its text. */
function countOf(value: unknown): number | undefined {
  const n =
    typeof value === 'number'
      ? value
      : typeof value === 'string' && /^\s*\d+\s*$/.test(value)
        ? Number(value)
        : Number.NaN;
  return Number.isInteger(n) && n >= 0 ? n : undefined;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}
