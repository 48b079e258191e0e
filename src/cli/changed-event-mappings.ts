import type { LoadedJob } from '../config/load-job.js';
import { SyncError } from '../errors.js';
import { displayPath } from '../text/display-path.js';
import { countNewEvents } from '../pipeline/events-new-count.js';
import { inDependencyOrder } from '../pipeline/stage-order.js';
import {
  createRunClassifier,
  eventsLookResent,
  knownByCells,
  mappingHeld,
  sendsOccurrences,
  syncStateFile,
  SyncState,
  type SyncMode,
} from '../sync/index.js';
import { catchUpWhenFree } from './catch-up-when-free.js';

/**
 * An event, product event or deal create is known to the sync state by its exact request, or by its name and
 * `identity:` cells: a mapping change (a field added to a mapping without identity, an event
 * renamed) gives every past event of a cumulative export a new identity, and an incremental run
 * would record them all again. Before a run is created, a file of an event resource whose mappings
 * changed since the state was recorded, and whose events look sent again (`eventsLookResent`: any
 * looks new, or most for occurrences known by cells, `knownByCells`), refuses the run (nothing
 * sent, no run left behind), unless the operator says the events are new indeed
 * (`--accept-mapping-change`). The state keeps each mapping's fingerprint (`mappingHeld`), so a
 * file is checked when its own mapping changed or is new to the job, not when another file's of
 * its resource did; files whose events the state still recognises go on.
 */
export async function refuseChangedEventMappings(
  job: LoadedJob,
  stateDir: string,
  mode: SyncMode,
  options: {
    readonly dealUpdateMethod: 'PATCH' | 'PUT';
    readonly limit?: number | undefined;
    readonly cwd: string;
    /** The run holds the state directory's lock already: the catch-up goes under it. */
    readonly locked?: boolean;
  },
): Promise<void> {
  const { cwd } = options;
  const state = SyncState.open(syncStateFile(stateDir, job.file), job.file, { cwd, mode: 'read', check: false });
  if (state === undefined) return;
  const requestOptions = { dealUpdateMethod: options.dealUpdateMethod };
  const classifier = createRunClassifier({ state, mode, requestOptions });
  try {
    // As the run would see it: the rows earlier runs committed and the state missed count as sent.
    catchUpWhenFree(state, stateDir, cwd, { locked: options.locked === true });
    const refused: string[] = [];
    for (const [index, mapping] of inDependencyOrder(job.mappings).entries()) {
      if (!sendsOccurrences(mapping)) continue;
      const stored = state.mappingFingerprint(mapping.resource);
      // This file's mapping as the state recorded it, whatever became of the resource's others;
      // the deal update method is part of every fingerprint, but changes no event's request.
      const held = (method: 'PATCH' | 'PUT') =>
        stored !== undefined && mappingHeld(stored, mapping, job.mappings, { dealUpdateMethod: method });
      if (stored === undefined || held('PATCH') || held('PUT')) continue;
      const { fresh, compared } = await countNewEvents(index, mapping, { ...options, ...requestOptions }, classifier);
      if (!eventsLookResent(fresh, compared, knownByCells(mapping))) continue;
      const n = new Intl.NumberFormat('en-US');
      refused.push(
        `${displayPath(mapping.source.path, cwd)}: ${n.format(fresh)} of ${n.format(compared)} ${mapping.resource === 'deal' ? 'deal creates' : 'events'} look new, and its mapping changed since the sync state was recorded (${displayPath(mapping.mappingFile, cwd)} was edited, or is new to the job)`,
      );
    }
    if (refused.length > 0)
      throw new SyncError(
        'SYNC_STATE',
        `${refused.join('; ')}. An event or a deal create is known by its exact request (or its name and identity: cells), so a changed mapping can make every one sent before look new, and sending them would record them (or create the deals) a second time. Nothing was sent. Put the mapping's earlier form back (its events are then recognised again), or, if these events are new indeed or the file is new to the job, run again with --accept-mapping-change`,
      );
  } finally {
    classifier.close();
    state.close();
  }
}
