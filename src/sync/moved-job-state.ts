import { existsSync, statSync } from 'node:fs';
import { basename, relative, resolve } from 'node:path';
import Database from 'better-sqlite3';
import { SyncError } from '../errors.js';
import { displayPath } from '../text/display-path.js';
import { listSyncStateFiles, syncStateFile } from './state-file.js';

/** A job's sync state found under the name of the path the job had before it moved. */
interface MovedJobState {
  /** The state file, named after the job's earlier path. */
  readonly file: string;
  /** The job's earlier path, as the state records it. */
  readonly from: string;
}

/**
 * The sync state this job probably left under its earlier path (a folder renamed, a redeploy to
 * another path): state files are named after the job's path, so a moved job finds none and would
 * send every row again, recording every event of a cumulative export twice. Found when this path
 * has no state and exactly one state of the state directory was written for a job file of the
 * same name at a path that no longer exists. A job copied elsewhere (its earlier path still
 * there) is another job, with a state of its own.
 */
function movedJobState(stateDir: string, jobPath: string): MovedJobState | undefined {
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

/**
 * A state of the directory recorded for this very job file reached by another path: a folder
 * link (`job-link -> job`), a bind mount, a hard link. Each path would have its own state, lock
 * check and unfinished runs, so a run by the other path would send every event again.
 */
function aliasedJobState(stateDir: string, jobPath: string): MovedJobState | undefined {
  const path = resolve(jobPath);
  const self = fileId(path);
  if (self === undefined) return undefined;
  for (const file of listSyncStateFiles(stateDir)) {
    const from = recordedJob(file);
    if (from !== undefined && from !== path && fileId(from) === self) return { file, from };
  }
  return undefined;
}

/** Whether two paths reach one file (a link to it or to its folder, a bind mount, a hard link). */
export function sameFile(a: string, b: string): boolean {
  const id = fileId(a);
  return id !== undefined && id === fileId(b);
}

/** Device and inode of a file, which every path to it shares (undefined when it is not there). */
function fileId(path: string): string | undefined {
  try {
    const stat = statSync(path, { bigint: true });
    return `${stat.dev}:${stat.ino}`;
  } catch {
    return undefined;
  }
}

/** The job path a state file records, or undefined when it cannot be read (left to the run's own checks). */
function recordedJob(file: string): string | undefined {
  try {
    const db = new Database(file, { readonly: true, fileMustExist: true });
    try {
      const value = db.prepare(`SELECT value FROM meta WHERE key = 'job'`).pluck().get();
      return typeof value === 'string' ? value : undefined;
    } finally {
      db.close();
    }
  } catch {
    return undefined;
  }
}

/**
 * Refuses a run (or preview) of a job reached by another path than its state's (a link), or one that seems to have moved, before anything is sent, and says
 * how to carry its state over with the state commands. Carrying it over is the operator's call:
 * the earlier path's unfinished runs, if any, must be resumed there first, and only the operator
 * knows whether this job is that one.
 */
export function refuseMovedJob(stateDir: string, jobPath: string, cwd: string): void {
  const alias = aliasedJobState(stateDir, jobPath);
  if (alias !== undefined) {
    const job = relative(cwd, resolve(jobPath)) || basename(jobPath);
    throw new SyncError(
      'SYNC_STATE',
      `${displayPath(stateDir, cwd)} holds the sync state of ${alias.from}, which is this same job file (${job}) reached by another path; nothing was sent. Name the job by that path, as its earlier runs did: its state and any unfinished run are recorded under it, and a run by this path would send every row again and record every event twice. To go by this path from now on instead, carry the state over (resume any unfinished run first): engage-import state export --job ${alias.from} --state-dir ${displayPath(stateDir, cwd)} moved-state.ndjson && engage-import state import --job ${job} --state-dir ${displayPath(stateDir, cwd)} moved-state.ndjson, then delete ${displayPath(alias.file, cwd)} and moved-state.ndjson`,
    );
  }
  const moved = movedJobState(stateDir, jobPath);
  if (moved === undefined) return;
  const dir = displayPath(stateDir, cwd);
  const job = relative(cwd, resolve(jobPath)) || basename(jobPath);
  // In the working directory: an export is refused inside the state directory.
  const file = 'moved-state.ndjson';
  throw new SyncError(
    'SYNC_STATE',
    `${dir} holds the sync state of ${moved.from}, a job of the same name at a path that no longer exists, and none for ${job}; nothing was sent. If this job moved from there, carry its state over (without it every row is sent again and every event recorded twice): engage-import state export --job ${moved.from} --state-dir ${dir} ${file} && engage-import state import --job ${job} --state-dir ${dir} ${file} (resume any unfinished run of the earlier path first, from there; delete ${file} after). If it is another job, delete ${displayPath(moved.file, cwd)} or give this one another --state-dir`,
  );
}
