import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import type { LoadedJob } from '../config/load-job.js';
import { DEFAULTS } from '../defaults.js';
import { LedgerError } from '../errors.js';
import { openSyncFeed } from '../ledger/index.js';
import { acquireLock } from '../ledger/lock.js';
import { listRunIds } from '../ledger/run-dirs.js';
import { catchUp, createRunClassifier, syncStateFile, SyncState, type RunClassifier } from '../sync/index.js';

/** Options of `validate` that ask for the incremental preview. */
export interface PreviewArgs {
  /** Classify rows against the job's sync state; default: the job file's `sync:` setting. */
  readonly incremental?: boolean | undefined;
  readonly 'state-dir'?: string | undefined;
  readonly 'deal-update-method': 'PATCH' | 'PUT';
}

/**
 * The classifier of `validate --incremental`: the job's sync state opened for reading (none yet:
 * every row is new), and a function that releases both. Undefined when the preview is not asked
 * for. A state of a newer format, or a damaged one, is refused here, before any row is read.
 */
export function openPreview(
  job: LoadedJob,
  args: PreviewArgs,
  cwd: string,
): { classifier: RunClassifier; close: () => void } | undefined {
  const incremental = args.incremental ?? job.sync === 'incremental';
  if (!incremental) return undefined;
  // The same default as a live run: beside the job file, whatever the working directory.
  const stateDir =
    args['state-dir'] !== undefined ? resolve(cwd, args['state-dir']) : join(dirname(job.file), DEFAULTS.stateDir);
  const state =
    caughtUpState(job, stateDir, cwd) ??
    SyncState.open(syncStateFile(stateDir, job.file), job.file, { cwd, mode: 'read' });
  const classifier = createRunClassifier({
    state,
    mode: 'incremental',
    requestOptions: { dealUpdateMethod: args['deal-update-method'] },
  });
  return {
    classifier,
    close: () => {
      classifier.close();
      state?.close();
    },
  };
}

/**
 * When no run holds the state directory: the state brought up to date with what the job's runs
 * committed and it missed (a kill -9 between the two commits, a last apply that failed, a state
 * deleted and rebuilt), as the next run will do first, so that the preview says what that run
 * would send. Undefined when a run holds the directory (it keeps the state up to date itself)
 * or the job has neither a state nor a run yet. The state is checked as a run checks it.
 */
function caughtUpState(job: LoadedJob, stateDir: string, cwd: string): SyncState | undefined {
  const file = syncStateFile(stateDir, job.file);
  if (!existsSync(file) && listRunIds(stateDir).length === 0) return undefined;
  let lock: ReturnType<typeof acquireLock>;
  try {
    lock = acquireLock(stateDir, { cwd });
  } catch (error) {
    if (error instanceof LedgerError && error.code === 'STATE_LOCKED') return undefined;
    throw error;
  }
  try {
    const state = SyncState.open(file, job.file, { cwd, mode: 'write' })!;
    try {
      catchUp(state, stateDir, (runDir) => openSyncFeed(runDir, { cwd }), { cwd });
    } catch (error) {
      state.close();
      throw error;
    }
    return state;
  } finally {
    lock.release();
  }
}
