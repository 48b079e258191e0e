import { basename, dirname, resolve } from 'node:path';
import { DEFAULTS } from '../defaults.js';
import { readRun, RUNS_FOLDER, stateDirOf } from '../ledger/index.js';
import { listSyncStateFiles, stateDirBeside } from '../sync/index.js';
import { checkStateDir } from './output-args.js';

/** Where a live run keeps its ledgers, its sync state and its lock. */
export interface RunStateDir {
  readonly stateDir: string;
  /** The run folder a resume named (absolute), if any. */
  readonly explicit: string | undefined;
  /** That folder sits in a state directory's `runs/`: the directory is its, whatever --state-dir says. */
  readonly inRuns: boolean;
}

/**
 * The state directory of a live run: `--state-dir`, else the one the named run folder is in,
 * else the default beside the job file (or, for `resume` without a job, the current folder's).
 * Checked before any ledger is opened in it: a file, a read-only folder or /proc is a usage error.
 */
export function runStateDir(
  jobArg: string | undefined,
  runDir: string | undefined,
  stateDirArg: string | undefined,
  cwd: string,
): RunStateDir {
  // The default state directory sits beside the job file, so the working directory does not
  // decide whether an unfinished run is found. `resume` without a job looks in the current folder.
  // `resume <run folder>`: a folder in a state directory's `runs/` belongs to that directory (its
  // sync state, its lock), wherever the command is run from; a --state-dir that names another one
  // is refused. A run folder moved out of it (parked, as a refusal offers) takes --state-dir, or
  // the default beside its job file.
  const explicit = runDir !== undefined ? resolve(cwd, runDir) : undefined;
  const inRuns =
    explicit !== undefined &&
    basename(dirname(explicit)) === RUNS_FOLDER &&
    listSyncStateFiles(stateDirOf(explicit)).length > 0;
  const parkedJob = explicit !== undefined && !inRuns ? readRun(explicit, { cwd })?.identity.job.path : undefined;
  // Checked before any ledger is opened in it: a file, a read-only folder or /proc is a usage error.
  const stateDir: string =
    inRuns && stateDirArg === undefined
      ? stateDirOf(explicit!)
      : checkStateDir(
          cwd,
          stateDirArg ??
            (jobArg !== undefined
              ? stateDirBeside(resolve(cwd, jobArg))
              : parkedJob !== undefined
                ? stateDirBeside(parkedJob)
                : DEFAULTS.stateDir),
        );
  return { stateDir, explicit, inRuns };
}
