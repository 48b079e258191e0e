import type { Classification, SourceClassifier, SyncKey } from '../sync/index.js';
import type { PlannedRow } from './plan-rows.js';

/** What the sync state decided for a valid row, and the key its `ok` outcome records. */
export type SyncVerdict = Classification & { readonly key: SyncKey };

/** Valid rows classified per sync-state lookup: one batched, prepared query per this many rows. */
export const SYNC_BATCH = 512;

/**
 * The stage's rows with the sync state's verdict on each valid one, in the same order. Rows wait
 * here until `SYNC_BATCH` valid rows are read, so the state is asked once per batch rather than
 * once per row. Without a classifier (a run that keeps no state) rows pass through as they are.
 */
export async function* withSyncVerdicts(
  rows: AsyncIterable<PlannedRow>,
  sync: SourceClassifier | undefined,
  /**
   * Whether a valid row will be skipped because a parent failed (earlier stages are complete, so
   * this is known). Such a row is still checked against the state (one already sent is
   * `already_sent`, not `skipped`), but claims no event identity, so a later row with the same
   * identity is sent rather than superseded by a row that never goes.
   */
  blocked: (row: PlannedRow & { readonly status: 'valid' }) => boolean = () => false,
): AsyncGenerator<{ readonly row: PlannedRow; readonly verdict?: SyncVerdict | undefined }> {
  if (sync === undefined) {
    for await (const row of rows) yield { row };
    return;
  }
  const held: PlannedRow[] = [];
  const valid: Extract<PlannedRow, { status: 'valid' }>[] = [];
  const skipped: boolean[] = [];
  function* release() {
    const verdicts = valid.length > 0 ? sync!.classify(valid, skipped) : [];
    let v = 0;
    for (const row of held) yield { row, verdict: row.status === 'valid' ? verdicts[v++] : undefined };
    held.length = 0;
    valid.length = 0;
    skipped.length = 0;
  }
  for await (const row of rows) {
    held.push(row);
    if (row.status !== 'valid') continue;
    skipped.push(blocked(row));
    if (valid.push(row) >= SYNC_BATCH) yield* release();
  }
  yield* release();
}
