/**
 * The bulk CSV imports the sandbox has accepted (`POST /users/import/` and friends), as
 * `GET /import/status/` answers them. Kept beside the records: `POST /__sandbox/reset` forgets
 * them, and an import still running stops at its next batch (its generation is gone).
 */

/** What the three upload endpoints import. */
export type ImportKind = 'users' | 'products' | 'deals';

/**
 * The running status name is not published (only `finished` is): the sandbox answers `running`
 * from the upload to the last row, then `finished`; `failed` when a seeded fault stops the import.
 */
export type ImportStatus = 'running' | 'finished' | 'failed';

/** One element of `rows_with_errors` (its shape is not published; docs/conformance.md). */
export interface RowWithErrors {
  /** The record's row in the file as a spreadsheet numbers it: the header is row 1, the first data row is 2. */
  readonly row: number;
  /** The row's non-empty cells, by field name (after `column_mapping`). */
  readonly data: Readonly<Record<string, string>>;
  /** Field → messages, the flat format of the per-row endpoints. */
  readonly errors: Readonly<Record<string, unknown>>;
}

/** At most this many failed rows are listed (docs/api-contract.md R-BULK-9: the first 50 failed rows at most). */
export const MAX_ROWS_WITH_ERRORS = 50;

/** What the upload asked for besides the file; the sandbox keeps it for tests to read. */
export interface ImportRequestOptions {
  readonly separator: 'comma' | 'tab' | 'semicolon';
  readonly columnMapping: Readonly<Record<string, string>>;
  /** Users only: tag names added to every imported contact. */
  readonly tags: readonly string[];
  /** Users only: list names (the sandbox has no lists; kept for tests to read). */
  readonly lists: readonly string[];
  /** Users only. */
  readonly triggerAutomations: boolean;
  /** The file's size in bytes and its data rows (header excluded). */
  readonly bytes: number;
  readonly rows: number;
}

export interface ImportRecord {
  readonly id: string;
  readonly kind: ImportKind;
  status: ImportStatus;
  readonly total_count: number;
  succeeded: number;
  failed: number;
  readonly started_at: string;
  finished_at: string | null;
  readonly author: string;
  readonly rows_with_errors: RowWithErrors[];
  readonly options: ImportRequestOptions;
}

/** The status object as `GET /import/status/` answers it (docs/api-contract.md R-BULK-7, in its field order). */
export function statusOf(record: ImportRecord): Record<string, unknown> {
  return {
    id: record.id,
    status: record.status,
    total_count: record.total_count,
    succeeded: record.succeeded,
    failed: record.failed,
    started_at: record.started_at,
    finished_at: record.finished_at,
    author: record.author,
    rows_with_errors: record.rows_with_errors,
  };
}

export class ImportStore {
  private readonly byId = new Map<string, ImportRecord>();
  /** Bumped by `clear()`: an import started under an older generation stops. */
  generation = 0;

  add(record: ImportRecord): void {
    this.byId.set(record.id, record);
  }

  get(id: string): ImportRecord | undefined {
    return this.byId.get(id);
  }

  /** Every import, oldest first (live records). */
  list(): readonly ImportRecord[] {
    return [...this.byId.values()];
  }

  clear(): void {
    this.byId.clear();
    this.generation++;
  }
}
