import { lstatSync, type Stats } from 'node:fs';
import { resolve } from 'node:path';
import { ConfigError, LedgerError } from '../errors.js';
import { acquireLock } from '../ledger/lock.js';
import { findUnfinishedRun } from '../ledger/index.js';
import { isInFolder } from '../pipeline/output-paths.js';
import { exportedJob, exportState, firstLineOf, type SyncState } from '../sync/index.js';
import { displayPath } from '../text/display-path.js';
import type { CliIo } from './command.js';
import { catchUpWithRuns, openExisting } from './open-sync-state.js';

/** `state export FILE`: the state of a job, caught up with its runs, as NDJSON for a fresh container to import. */
export async function runStateExport(given: string, stateDir: string, stateFile: string, io: CliIo): Promise<void> {
  const target = resolve(io.cwd, given);
  await checkExportTarget(target, stateDir, given, (p) => displayPath(p, io.cwd));
  // Under the lock, caught up and checked as a run's state is: the export is what the next
  // container's runs start from, so a row accepted and not yet in it would be sent again there.
  const lock = acquireLock(stateDir, { cwd: io.cwd });
  try {
    const state = openExisting(stateFile, io, 'write');
    try {
      refuseUnfinishedRun(state, stateDir, io.cwd);
      catchUpWithRuns(state, stateDir, io.cwd);
      const rows = await exportState(state, target);
      io.stderr.write(
        `Exported ${rows.toLocaleString('en-US')} rows of the sync state of ${displayPath(state.job, io.cwd)} to ${given}.\n`,
      );
    } finally {
      state.close();
    }
  } finally {
    lock.release();
  }
}

/**
 * An export while a run of the job is unfinished (killed, or stopped) would leave out the rows it
 * had in flight and, until it is resumed, some it had accepted: a fresh container restoring it
 * would send them again, and an event would be recorded twice.
 */
function refuseUnfinishedRun(state: SyncState, stateDir: string, cwd: string): void {
  const run = findUnfinishedRun(stateDir, { cwd, jobPath: state.job });
  if (run === undefined) return;
  const where = displayPath(run.runDir, cwd);
  throw new LedgerError(
    'RESUME_REFUSED',
    `state export: an unfinished run of this job is in ${where}; the rows it had in flight are not in the sync state, and a state restored from this export would send them again: resume it first ('engage-import resume ${where}'), then export; nothing was written`,
  );
}

/**
 * An export may replace only an earlier export (or an empty file): any other file there may be
 * the job, a mapping or an input CSV, which an export written over it would destroy.
 */
async function checkExportTarget(target: string, stateDir: string, given: string, show: (p: string) => string) {
  if (isInFolder(target, stateDir))
    throw new ConfigError(
      'USAGE',
      `state export: ${given} is inside the state directory ${show(stateDir)}, beside the state and the run ledgers it could overwrite: write the export somewhere else`,
    );
  // lstat: the export is written beside its target and renamed over it, which would replace a
  // link, a device or a pipe by a regular file.
  const stat = lstatOf(target);
  if (stat === undefined) return;
  if (stat.isDirectory())
    throw new ConfigError('USAGE', `state export: ${given} is a folder: name the file to write the export to`);
  if (!stat.isFile())
    throw new ConfigError(
      'USAGE',
      `state export: ${given} is not a regular file (a link, a device or a pipe): write the export to a new file, or over an earlier export`,
    );
  if (stat.size === 0) return;
  if (exportedJob(await firstLineOf(target, given)) === undefined)
    throw new ConfigError(
      'USAGE',
      `state export: ${given} exists and is not a sync state export (it may be the job, a mapping or an input file): write the export to a new file, or over an earlier export`,
    );
}

function lstatOf(path: string): Stats | undefined {
  try {
    return lstatSync(path);
  } catch {
    return undefined;
  }
}
