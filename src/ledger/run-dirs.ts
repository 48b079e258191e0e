import { type Dirent, existsSync, readdirSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { openDb, readMeta } from './_database.js';
import type { RunIdentity } from './identity.js';

/**
 * The state directory's layout: `<state-dir>/lock` and one folder per run,
 * `<state-dir>/runs/<run-id>/ledger.sqlite`, where a run id such as `20261123T071500Z-3f9a`
 * sorts by the time the run started.
 */
export const RUNS_FOLDER = 'runs';
export const LEDGER_FILE = 'ledger.sqlite';

const RUN_ID = /^(\d{8}T\d{6}Z)-([0-9a-f]{4})$/;

/** What is known of a run without opening it for writing. */
export interface RunInfo {
  readonly runDir: string;
  readonly finished: boolean;
  readonly identity: RunIdentity;
}

export const runsDir = (stateDir: string) => join(stateDir, RUNS_FOLDER);
export const ledgerFile = (runDir: string) => join(runDir, LEDGER_FILE);
/** The state directory a run folder belongs to (its lock covers every run in it). */
export const stateDirOf = (runDir: string) => dirname(dirname(resolve(runDir)));
export const isRunId = (name: string) => RUN_ID.test(name);

/** `2026-11-23T07:15:00.123Z` → `20261123T071500Z`. */
export function runStamp(at: Date): string {
  return at
    .toISOString()
    .replace(/\.\d{3}Z$/, 'Z')
    .replace(/[-:]/g, '');
}

/**
 * A new run id that sorts after every existing one, so that "the newest run" is the last one
 * created even when two runs start in the same second or the clock was set back; the suffix
 * is random otherwise, so ids from different machines rarely meet.
 */
export function nextRunId(existing: readonly string[], now: Date, random: () => number = Math.random): string {
  const hex4 = (n: number) => n.toString(16).padStart(4, '0');
  const candidate = `${runStamp(now)}-${hex4(Math.floor(random() * 0x8000))}`;
  const latest = existing.filter(isRunId).sort().at(-1);
  if (latest === undefined || candidate > latest) return candidate;
  const [, stamp, suffix] = RUN_ID.exec(latest)!;
  const next = parseInt(suffix!, 16) + 1;
  if (next <= 0xffff) return `${stamp}-${hex4(next)}`;
  const later = new Date(
    Date.parse(stamp!.replace(/^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/, '$1-$2-$3T$4:$5:$6Z')) + 1000,
  );
  return `${runStamp(later)}-0000`;
}

/** Run ids in a state directory, oldest first (folders being created, `.…`, are not runs). */
export function listRunIds(stateDir: string): string[] {
  let entries: Dirent[];
  try {
    entries = readdirSync(runsDir(stateDir), { withFileTypes: true });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw error;
  }
  return entries
    .filter((e) => e.isDirectory() && isRunId(e.name))
    .map((e) => e.name)
    .sort();
}

/**
 * The run in a folder: undefined when it holds no ledger; LedgerError when the ledger is
 * damaged. Takes no lock: it only reads, and WAL readers never disturb a writer.
 */
export function readRun(runDir: string, options: { cwd?: string } = {}): RunInfo | undefined {
  const file = ledgerFile(runDir);
  if (!existsSync(file)) return undefined;
  const place = { file, cwd: options.cwd ?? process.cwd() };
  const db = openDb(place, 'existing');
  try {
    const meta = readMeta(db, place);
    return { runDir: resolve(runDir), finished: meta.finished, identity: meta.identity };
  } finally {
    db.close();
  }
}

/** The newest run of a state directory (by run id), whether it finished, and what it was. */
export function findLatestRun(stateDir: string, options: { cwd?: string } = {}): RunInfo | undefined {
  for (const id of listRunIds(stateDir).reverse()) {
    const run = readRun(join(runsDir(stateDir), id), options);
    if (run !== undefined) return run;
  }
  return undefined;
}

/**
 * The newest run of a state directory that has not finished, of `jobPath` when given: what
 * `resume` continues, and what a plain `import` of that job must not start over.
 */
export function findUnfinishedRun(
  stateDir: string,
  options: { cwd?: string; jobPath?: string } = {},
): RunInfo | undefined {
  for (const id of listRunIds(stateDir).reverse()) {
    const run = readRun(join(runsDir(stateDir), id), options);
    if (run === undefined || run.finished) continue;
    if (options.jobPath === undefined || run.identity.job.path === options.jobPath) return run;
  }
  return undefined;
}
