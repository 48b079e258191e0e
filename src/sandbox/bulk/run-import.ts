/**
 * Runs one accepted import in the background at `bulkRowsPerS` rows a second (docs/api-contract.md
 * R-BULK-10: the docs' example imported about 450 rows/s): rows are applied in order, in batches, with the
 * injected `sleep` between batches, so tests run an import at once and benches at any speed.
 * Each row goes through `applyRow` (the per-row endpoints' checks) and is logged as an `IMPORT`
 * entry; the first 50 failures are listed in `rows_with_errors`. A seeded bulk fault stops the
 * import part-way with status `failed` (the rows applied so far stay applied).
 */
import { isoTime } from '../datetime.js';
import type { RequestLogEntry } from '../request-log.js';
import type { SandboxState } from '../state.js';
import { applyRow } from './apply-row.js';
import { readRecords } from './csv-records.js';
import { MAX_ROWS_WITH_ERRORS, type ImportRecord } from './import-store.js';

export interface RunImportDeps {
  readonly state: SandboxState;
  readonly now: () => number;
  readonly sleep: (ms: number) => Promise<void>;
  readonly log: (entry: RequestLogEntry) => void;
  /** Rows per second; 0: as fast as the event loop allows. */
  readonly rowsPerS: () => number;
  /** True once the sandbox is closing: the import stops where it is. */
  readonly stopped: () => boolean;
}

/** Rows applied per batch when the rate is off: other requests get the event loop in between. */
const UNPACED_BATCH = 1000;

/**
 * @param header the field name of each column (after `column_mapping`).
 * @param failAfter a seeded whole-import fault: the import stops with `failed` after this many rows; undefined: none.
 */
export async function runImport(
  record: ImportRecord,
  chunks: Buffer[],
  header: readonly string[],
  failAfter: number | undefined,
  deps: RunImportDeps,
): Promise<void> {
  const generation = deps.state.imports.generation;
  const path = `/api/public/${record.kind}/import/`;
  let index = 0; // data rows read
  let inBatch = 0;
  const gone = () => deps.stopped() || deps.state.imports.generation !== generation;
  let first = true;
  for await (const cells of readRecords(chunks, record.options.separator)) {
    if (first) {
      first = false; // the header, read at upload
      continue;
    }
    if (gone()) return;
    if (failAfter !== undefined && index >= failAfter) break;
    index++;
    const row = index + 1;
    const fields: Record<string, string> = {};
    for (let i = 0; i < header.length; i++) {
      const cell = cells[i] ?? '';
      // An empty cell gives no value; a column without a name is not read.
      if (cell !== '' && header[i] !== '') fields[header[i]!] = cell;
    }
    const result =
      cells.length !== header.length
        ? {
            ok: false as const,
            errors: {
              non_field_errors: [`The row has ${cells.length} values; the header has ${header.length} columns.`],
            },
          }
        : applyRow(record.kind, fields, deps.state, record.options);
    if (result.ok) record.succeeded++;
    else {
      record.failed++;
      if (record.rows_with_errors.length < MAX_ROWS_WITH_ERRORS)
        record.rows_with_errors.push({ row, data: fields, errors: result.errors });
    }
    deps.log({
      time: isoTime(deps.now()),
      method: 'IMPORT',
      path,
      status: result.ok ? 200 : 400,
      applied: result.ok,
      body: fields,
      fault: null,
      importId: record.id,
      row,
    });
    inBatch++;
    const rate = deps.rowsPerS();
    const batch = rate === 0 ? UNPACED_BATCH : Math.max(1, Math.ceil(rate / 10));
    if (inBatch >= batch) {
      await (rate === 0 ? new Promise<void>((resolve) => setImmediate(resolve)) : deps.sleep((inBatch * 1000) / rate));
      inBatch = 0;
    }
  }
  if (gone()) return;
  if (inBatch > 0 && deps.rowsPerS() > 0) await deps.sleep((inBatch * 1000) / deps.rowsPerS());
  if (gone()) return;
  record.status = failAfter !== undefined ? 'failed' : 'finished';
  record.finished_at = isoTime(deps.now());
}
