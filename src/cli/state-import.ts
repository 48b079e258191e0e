import { existsSync, rmSync } from 'node:fs';
import { basename } from 'node:path';
import { ConfigError } from '../errors.js';
import { acquireLock } from '../ledger/lock.js';
import { importState, jobNamedIn, sameFile, syncStateFile, SyncState } from '../sync/index.js';
import { displayPath } from '../text/display-path.js';
import type { CliIo } from './command.js';

/** `state import FILE [--job J]`: an export restored into the sync state of its job (or of the job named). */
export async function runStateImport(
  file: string,
  namedJob: string | undefined,
  stateDirOf: (job: string) => string,
  io: CliIo,
): Promise<void> {
  const show = (p: string) => displayPath(p, io.cwd);
  const job = restoredJob(namedJob, await jobNamedIn(file, show(file)), show);
  const stateDir = stateDirOf(job);
  const lock = acquireLock(stateDir, { cwd: io.cwd });
  const stateFile = syncStateFile(stateDir, job);
  const existed = existsSync(stateFile);
  try {
    const state = SyncState.open(stateFile, job, { cwd: io.cwd, mode: 'write', check: false })!;
    try {
      const rows = await importState(state, file, io.cwd);
      io.stderr.write(
        `Imported ${rows.toLocaleString('en-US')} rows into the sync state of ${show(job)} (${show(state.place.file)}).\n`,
      );
    } finally {
      state.close();
    }
  } catch (error) {
    // "The sync state was not changed": a state the refused import created is not left behind.
    if (!existed) for (const f of [stateFile, `${stateFile}-wal`, `${stateFile}-shm`]) rmSync(f, { force: true });
    throw error;
  } finally {
    lock.release();
  }
}

/**
 * The job an import restores the state of: the one named with --job, or the one the export names
 * when that file is here (the same machine). An export whose job has another file name is another
 * job's, refused; the same name at another path is the same job moved (a fresh container), unless
 * the exported job is here too: then it is that job reached by another path, or another job.
 */
function restoredJob(named: string | undefined, exported: string, show: (p: string) => string): string {
  if (named === undefined) {
    if (existsSync(exported)) return exported;
    throw new ConfigError(
      'USAGE',
      `the export is of the job ${exported}, which is not there on this machine; name the job to restore it for: engage-import state import FILE --job path/to/${basename(exported)}; the sync state was not changed`,
    );
  }
  if (!existsSync(named))
    throw new ConfigError(
      'USAGE',
      `there is no job file ${show(named)}: a state restored for it would sit where no run reads it; name the job file the state is for; the sync state was not changed`,
    );
  if (basename(named) !== basename(exported))
    throw new ConfigError(
      'USAGE',
      `the export is of the job ${exported}, not ${show(named)}: a state restored into another job would call its rows sent; the sync state was not changed`,
    );
  if (named === exported || !existsSync(exported)) return named;
  // The exported job's file is here too: this job by another path (a link), which is how the
  // operator carries its state over to go by that path from now on; or a copy, another job.
  if (sameFile(named, exported)) return named;
  throw new ConfigError(
    'USAGE',
    `the export is of the job ${exported}, which is on this machine too, and ${show(named)} is another job of the same name: a state restored into it would call its rows sent; restore it for ${exported}, or name the job file it belongs to; the sync state was not changed`,
  );
}
