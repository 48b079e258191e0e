import { acquireLock, openSyncFeed } from '../ledger/index.js';
import { catchUp, runsToApply, SyncState } from '../sync/index.js';

/**
 * Brings `state` up to what the job's runs committed: a kill -9 between a ledger commit and the
 * state's own, or a last apply that failed, leaves accepted rows only in a run's ledger. Done
 * only when the state is behind, knows its target (so that runs sent to another account are never
 * applied), and the state directory's lock is free, under that lock for the moment it takes;
 * otherwise the state is left as it is (a run in progress keeps it up to date itself).
 * `state` stays open for reading; the catch-up writes through a connection of its own.
 */
export function catchUpWhenFree(
  state: SyncState,
  stateDir: string,
  cwd: string,
  /** The caller holds the state directory's lock already (a run, before its ledger exists). */
  options: { readonly locked?: boolean } = {},
): void {
  if (state.target() === undefined || runsToApply(state, stateDir, { cwd }).length === 0) return;
  let lock: ReturnType<typeof acquireLock> | undefined;
  try {
    lock = options.locked === true ? undefined : acquireLock(stateDir, { cwd });
  } catch {
    return;
  }
  try {
    const writer = SyncState.open(state.place.file, state.job, { cwd, mode: 'write', check: false })!;
    try {
      catchUp(writer, stateDir, (runDir) => openSyncFeed(runDir, { cwd }), { cwd });
    } finally {
      writer.close();
    }
  } finally {
    lock?.release();
  }
}
