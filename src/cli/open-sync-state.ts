import { SyncError } from '../errors.js';
import { openSyncFeed } from '../ledger/index.js';
import { catchUp, SyncState } from '../sync/index.js';
import { displayPath } from '../text/display-path.js';
import type { CliIo } from './command.js';

/** An existing sync state, for the state commands: opened to read (`show`), or to change under the lock. */
export function openExisting(file: string, io: CliIo, mode: 'read' | 'write'): SyncState {
  // `read` of a missing file is undefined; findStateFile has checked it exists.
  const state = SyncState.open(file, '', { cwd: io.cwd, mode, check: mode === 'write' });
  if (state === undefined) throw new SyncError('SYNC_STATE', `there is no sync state at ${displayPath(file, io.cwd)}`);
  return state;
}

/**
 * Applies what the job's runs committed and the state has not yet (the caller holds the lock).
 * Only into a state that knows its target, so that only runs sent to its account are applied.
 */
export function catchUpWithRuns(state: SyncState, stateDir: string, cwd: string): void {
  if (state.target() !== undefined) catchUp(state, stateDir, (runDir) => openSyncFeed(runDir, { cwd }), { cwd });
}
