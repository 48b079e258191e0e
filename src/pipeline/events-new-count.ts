import type { ResolvedMapping } from '../config/mapping-schema.js';
import type { RunClassifier } from '../sync/index.js';
import { displayPath } from '../text/display-path.js';
import { openSources } from './open-sources.js';
import { planRows, type PlanOptions, type PlannedRow } from './plan-rows.js';
import { SYNC_BATCH } from './sync-verdicts.js';

/** How an event file compares with the sync state: rows that look new, of the rows compared. */
export interface NewEventsCount {
  readonly fresh: number;
  readonly compared: number;
}

/**
 * Reads an event file once and classifies its valid rows against the sync state (`classifier`,
 * used for this file alone), counting the events the state has never seen (`new`) among those
 * it could compare (`new` and `already_sent`). Asked only on the night an event mapping without
 * `identity:` changed, before anything is sent.
 */
export async function countNewEvents(
  index: number,
  mapping: ResolvedMapping,
  options: PlanOptions & { readonly cwd: string },
  classifier: RunClassifier,
): Promise<NewEventsCount> {
  const [opened] = await openSources([mapping]);
  const sync = classifier.forSource(
    index,
    mapping,
    opened!.source.header,
    displayPath(mapping.source.path, options.cwd),
  );
  let fresh = 0;
  let compared = 0;
  const batch: Extract<PlannedRow, { status: 'valid' }>[] = [];
  const count = () => {
    for (const c of sync.classify(batch)) {
      if (c.status === 'new') fresh++;
      if (c.status === 'new' || c.status === 'already_sent') compared++;
    }
    batch.length = 0;
  };
  // planRows closes the source however the loop ends.
  for await (const row of planRows(mapping, opened!.source, options)) {
    if (row.status !== 'valid') continue;
    if (batch.push(row) >= SYNC_BATCH) count();
  }
  if (batch.length > 0) count();
  return { fresh, compared };
}
