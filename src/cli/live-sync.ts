import type { LoadedJob } from '../config/load-job.js';
import { openSyncFeed, type OpenLedger, type RunIdentity } from '../ledger/index.js';
import { catchUpWhenFree } from './catch-up-when-free.js';
import {
  catchUp,
  createRunClassifier,
  createSendAllClassifier,
  refuseMovedJob,
  resourceFingerprints,
  sendsOccurrences,
  syncStateFile,
  SyncState,
  type RunClassifier,
  type SyncMode,
} from '../sync/index.js';

/** The sync side of a live run: the classifier the pipeline asks, and the state kept up to date. */
export interface RunSync {
  readonly classifier: RunClassifier;
  /** Applies what the run's ledger committed since the last call (idempotent). */
  apply(): void;
  close(): void;
}

/** How a run treats the sync state: `incremental`, `full-refresh`, or undefined (send every row, record them all). */
export type RunSyncMode = SyncMode | undefined;

/**
 * Before the run is created: a sync state that the run could not use (a newer format, damaged,
 * written for another target), or none where the job seems to have moved from another path with
 * its state directory, is refused now, so the refusal leaves no run folder behind.
 */
export function checkSyncState(
  job: LoadedJob,
  stateDir: string,
  target: RunIdentity['target'],
  cwd: string,
  /** `--key-rotated` (see `SyncState.checkTarget`). */
  keyRotated = false,
): void {
  refuseMovedJob(stateDir, job.file, cwd);
  const state = SyncState.open(syncStateFile(stateDir, job.file), job.file, { cwd, mode: 'read' });
  try {
    if (target !== undefined) state?.checkTarget(target, false, keyRotated);
  } finally {
    state?.close();
  }
}

/**
 * Before a run or resume is refused because of an unfinished run: what that run committed and
 * the state has not applied yet (its last second of accepted rows, after a kill -9) is applied
 * now (`catchUpWhenFree`), so that the operator may move its folder away, as the refusal offers,
 * without those rows being sent again.
 */
export function catchUpBeforeRefusal(
  job: LoadedJob,
  stateDir: string,
  cwd: string,
  /** The caller holds the state directory's lock (`catchUpWhenFree`). */
  options: { readonly locked?: boolean } = {},
): void {
  const state = SyncState.open(syncStateFile(stateDir, job.file), job.file, { cwd, mode: 'read', check: false });
  if (state === undefined) return;
  try {
    catchUpWhenFree(state, stateDir, cwd, options);
  } finally {
    state.close();
  }
}

/**
 * Opens the job's sync state under the state directory's lock (the run's ledger holds it),
 * applies what earlier runs committed and the state missed (a kill -9 between the two commits),
 * records the mappings' fingerprints in the run, and from then on applies the run's own outbox
 * after every ledger commit. Every run records what it sent; only `incremental` and
 * `full-refresh` runs classify rows.
 */
export async function openRunSync(
  job: LoadedJob,
  stateDir: string,
  ledger: OpenLedger,
  mode: RunSyncMode,
  requestOptions: { dealUpdateMethod: 'PATCH' | 'PUT' },
  cwd: string,
  /** `--accept-mapping-change`: the event mappings' new fingerprints are recorded now. */
  acceptMappingChange = false,
  /** `--key-rotated`: the state takes the run's new key, once the runs sent with the old one are applied. */
  keyRotated = false,
): Promise<RunSync> {
  const state = SyncState.open(syncStateFile(stateDir, job.file), job.file, { cwd, mode: 'write', check: false })!;
  try {
    const catchUpNow = () => catchUp(state, stateDir, (runDir) => openSyncFeed(runDir, { cwd }), { cwd });
    // Runs are caught up only when they were sent to the state's target: those of the old key first.
    if (keyRotated) catchUpNow();
    if (ledger.identity.target !== undefined) state.checkTarget(ledger.identity.target, true, keyRotated);
    catchUpNow();
    const fingerprints = resourceFingerprints(job.mappings, requestOptions);
    await ledger.recordFingerprints(fingerprints);
    if (acceptMappingChange) {
      const occurrences = job.mappings.filter(sendsOccurrences).map((m) => m.resource);
      state.acceptMappings(fingerprints, [...new Set(occurrences)], ledger.runId);
    }
  } catch (error) {
    state.close();
    throw error;
  }
  const feed = openSyncFeed(ledger.runDir, { cwd });
  const classifier =
    mode === undefined ? createSendAllClassifier(state) : createRunClassifier({ state, mode, requestOptions });
  let failed = false;
  const apply = () => {
    if (failed) return;
    state.apply(feed);
  };
  // After every group commit, in the same tick: the state lags the ledger by no more than that.
  // A run folder moved away after a kill -9 (as a refusal offers) takes only its rows in flight
  // with it; a state applied once a second lost that second of accepted events, which the next
  // run sent again. (An apply is a transaction with an fsync: at the API's 10 requests/s, nothing.)
  // The run's own classification needs the earlier stages' rows, and gets them by a full apply
  // before each stage (`apply` below, the pipeline's beforeStage; a failure there is a warning,
  // as the last apply's is, and the stage compares with the state as it is). A failure here
  // leaves the rows in the ledger's outbox, which the next run's catch-up applies; the run goes
  // on (the ledger is the truth).
  ledger.afterCommit(() => {
    try {
      apply();
    } catch {
      failed = true;
    }
  });
  return {
    classifier,
    apply: () => {
      failed = false;
      apply();
    },
    close: () => {
      classifier.close();
      feed.close();
      state.close();
    },
  };
}
