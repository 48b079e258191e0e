import type { ResolvedMapping } from '../config/mapping-schema.js';
import type { SourceClassifier } from '../sync/index.js';
import { openSources } from './open-sources.js';
import { planRows, type PlanOptions, type PlannedRow } from './plan-rows.js';
import { SYNC_BATCH } from './sync-verdicts.js';

/**
 * How many valid rows of a products file would update a product the account already has, by the
 * sync state (`changed`, or `unchanged` resent by a full refresh). `POST /products/` only
 * creates, so such rows can reach the account only through the bulk import (an upsert by
 * custom_id): the stage's strategy is chosen with this count. One more reading of the file,
 * asked only for a products stage too small for bulk by size alone (under `--bulk-min-rows`).
 */
export async function countProductUpdates(
  mapping: ResolvedMapping,
  options: PlanOptions,
  sync: SourceClassifier,
): Promise<number> {
  const [opened] = await openSources([mapping]);
  let updates = 0;
  const batch: Extract<PlannedRow, { status: 'valid' }>[] = [];
  // planRows closes the source however the loop ends.
  for await (const row of planRows(mapping, opened!.source, options)) {
    if (row.status !== 'valid') continue;
    if (batch.push(row) < SYNC_BATCH) continue;
    updates += sync.updates(batch);
    batch.length = 0;
  }
  if (batch.length > 0) updates += sync.updates(batch);
  return updates;
}
