import { existsSync, renameSync } from 'node:fs';
import { basename, resolve } from 'node:path';
import Database from 'better-sqlite3';
import { listSyncStateFiles, syncStateFile } from './state-file.js';

/** A job's sync state found under the name of the path the job had before it moved. */
export interface MovedJobState {
  /** The state file, named after the job's earlier path. */
  readonly file: string;
  /** The job's earlier path, as the state records it. */
  readonly from: string;
}

/**
 * The sync state of this job when the job file moved (a folder renamed, a redeploy to another
 * path): state files are named after the job's path, so the moved job would find none and send
 * every event of a cumulative export again. Found when this path has no state and exactly one
 * state of the state directory was written for a job file of the same name at a path that no
 * longer exists. A job copied elsewhere (its earlier path still there) is another job.
 */
export function movedJobState(stateDir: string, jobPath: string): MovedJobState | undefined {
  const own = syncStateFile(stateDir, jobPath);
  if (existsSync(own)) return undefined;
  const name = basename(resolve(jobPath));
  // `<name>-<12 hex>.sqlite`: the same job file name, any path.
  const prefix = basename(own).slice(0, -'-000000000000.sqlite'.length);
  const found: MovedJobState[] = [];
  for (const file of listSyncStateFiles(stateDir)) {
    if (file === own || !basename(file).startsWith(`${prefix}-`)) continue;
    const from = recordedJob(file);
    if (from !== undefined && basename(from) === name && !existsSync(from)) found.push({ file, from });
  }
  return found.length === 1 ? found[0] : undefined;
}

/** The job path a state file records, or undefined when it cannot be read (left to the run's own checks). */
function recordedJob(file: string): string | undefined {
  try {
    const db = new Database(file, { readonly: true, fileMustExist: true });
    try {
      const row = db.prepare(`SELECT value FROM meta WHERE key = 'job'`).pluck().get();
      return typeof row === 'string' ? row : undefined;
    } finally {
      db.close();
    }
  } catch {
    return undefined;
  }
}

/** The state file a job reads: its own, or the one it left under its earlier path. */
export function jobStateFile(stateDir: string, jobPath: string): string {
  return movedJobState(stateDir, jobPath)?.file ?? syncStateFile(stateDir, jobPath);
}

/**
 * Gives a moved job's state its new name and path (under the state directory's lock, with the
 * state closed and caught up with the earlier path's runs first, which name that path).
 */
export function renameMovedState(moved: MovedJobState, stateDir: string, jobPath: string): void {
  const db = new Database(moved.file, { fileMustExist: true });
  try {
    db.prepare(`UPDATE meta SET value = ? WHERE key = 'job'`).run(resolve(jobPath));
  } finally {
    // The last connection: SQLite folds the WAL into the file and removes it.
    db.close();
  }
  renameSync(moved.file, syncStateFile(stateDir, jobPath));
}
