import { createHash } from 'node:crypto';
import { readdirSync } from 'node:fs';
import { basename, dirname, extname, join, resolve } from 'node:path';
import { DEFAULTS } from '../defaults.js';

/** Beside `<state-dir>/runs/`: `<state-dir>/sync/<job>-<hash>.sqlite`, one file per job. */
export const SYNC_FOLDER = 'sync';

/** Where a job's runs keep their ledgers and its sync state by default: beside the job file, whatever the cwd. */
export function stateDirBeside(jobPath: string): string {
  return join(dirname(resolve(jobPath)), DEFAULTS.stateDir);
}

/**
 * The sync state file of a job: named after the job file (readable in `ls`) plus a hash of its
 * absolute path, so two jobs called `nightly.yaml` in different folders never share a state.
 */
export function syncStateFile(stateDir: string, jobPath: string): string {
  const abs = resolve(jobPath);
  const name =
    basename(abs, extname(abs))
      .replace(/[^A-Za-z0-9._-]+/g, '_')
      .slice(0, 60) || 'job';
  const hash = createHash('sha256').update(abs, 'utf8').digest('hex').slice(0, 12);
  return join(resolve(stateDir), SYNC_FOLDER, `${name}-${hash}.sqlite`);
}

/** Every sync state file of a state directory (none when the folder does not exist). */
export function listSyncStateFiles(stateDir: string): string[] {
  try {
    return readdirSync(join(resolve(stateDir), SYNC_FOLDER))
      .filter((n) => n.endsWith('.sqlite'))
      .sort()
      .map((n) => join(resolve(stateDir), SYNC_FOLDER, n));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw error;
  }
}
