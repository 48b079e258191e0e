import type { LoadedJob } from '../config/load-job.js';
import { SyncError } from '../errors.js';
import { displayPath } from '../pipeline/display-path.js';
import { countNewEvents } from '../pipeline/events-new-count.js';
import { inDependencyOrder } from '../pipeline/stage-order.js';
import { createRunClassifier, resourceFingerprints, syncStateFile, SyncState, type SyncMode } from '../sync/index.js';

/**
 * An event or product event without `identity:` is known to the sync state by its exact request,
 * so a mapping change (a field added, a value reworded) gives every past event of a cumulative
 * export a new identity: an incremental run would record them all again. Before a run is created,
 * a file of such a mapping whose resource's mapping changed since the state was recorded, and
 * whose events mostly look new, refuses the run (nothing sent, no run left behind), unless the
 * operator says the events are new indeed (`--accept-mapping-change`). Files whose events the
 * state still recognises (another mapping of the resource changed) go on.
 */
export async function refuseChangedEventMappings(
  job: LoadedJob,
  stateDir: string,
  mode: SyncMode,
  options: { readonly dealUpdateMethod: 'PATCH' | 'PUT'; readonly limit?: number | undefined; readonly cwd: string },
): Promise<void> {
  const state = SyncState.open(syncStateFile(stateDir, job.file), job.file, {
    cwd: options.cwd,
    mode: 'read',
    check: false,
  });
  if (state === undefined) return;
  const requestOptions = { dealUpdateMethod: options.dealUpdateMethod };
  const classifier = createRunClassifier({ state, mode, requestOptions });
  try {
    const current = resourceFingerprints(job.mappings, requestOptions);
    const refused: string[] = [];
    for (const [index, mapping] of inDependencyOrder(job.mappings).entries()) {
      if (mapping.resource !== 'event' && mapping.resource !== 'product-event') continue;
      if ((mapping.identity ?? []).length > 0) continue;
      const stored = state.mappingFingerprint(mapping.resource);
      if (stored === undefined || stored === current[mapping.resource]) continue;
      const { fresh, compared } = await countNewEvents(index, mapping, { ...options, ...requestOptions }, classifier);
      if (compared === 0 || fresh * 2 <= compared) continue;
      const n = new Intl.NumberFormat('en-US');
      refused.push(
        `${displayPath(mapping.source.path, options.cwd)}: ${n.format(fresh)} of ${n.format(compared)} events look new and ${displayPath(mapping.mappingFile, options.cwd)} changed since the sync state was recorded`,
      );
    }
    if (refused.length > 0)
      throw new SyncError(
        'SYNC_STATE',
        `${refused.join('; ')}. Without identity: an event is known by its exact request, so a changed mapping makes every event sent before look new, and sending them would record them a second time. Nothing was sent. Put the mapping's earlier form back (its events are then recognised again), or, if these events are new indeed, run again with --accept-mapping-change`,
      );
  } finally {
    classifier.close();
    state.close();
  }
}
