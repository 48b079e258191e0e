import { makeFolders } from '../report/make-folders.js';
import { existsSync, closeSync, fsyncSync, mkdirSync, openSync, readdirSync, renameSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { LedgerError } from '../errors.js';
import {
  initialise,
  isEmpty,
  openDb,
  OUTBOX_SQL,
  quickCheck,
  readMeta,
  storeIdentity,
  toLedgerError,
} from './_database.js';
import { displayPath } from '../text/display-path.js';
import { SqliteLedger } from './_sqlite-ledger.js';
import { identityChanges, normaliseIdentity, targetChanges, type RunIdentity } from './identity.js';
import { acquireLock, type StateLock } from './lock.js';
import type { LedgerOptions, OpenLedger } from './types.js';
import { LEDGER_FILE, ledgerFile, listRunIds, nextRunId, runsDir, stateDirOf } from './run-dirs.js';

/**
 * Starts a run: takes the state directory's lock, then creates `<state-dir>/runs/<run-id>/`
 * with its ledger and identity. The folder is prepared under a hidden name and renamed into
 * place, so a crash while creating never leaves a run folder without its identity.
 */
export async function createRun(
  stateDir: string,
  identity: RunIdentity,
  now: () => Date = () => new Date(),
  options: LedgerOptions = {},
): Promise<OpenLedger> {
  const cwd = options.cwd ?? process.cwd();
  const state = resolve(stateDir);
  const runs = runsDir(state);
  try {
    if (!existsSync(runs)) {
      makeFolders(runs);
      fsyncDir(state);
    }
  } catch (error) {
    throw new LedgerError(
      'LEDGER',
      `cannot create the state directory ${displayPath(runs, cwd)}: ${(error as Error).message}`,
      { cause: error },
    );
  }
  const lock = options.heldLock ?? acquireLock(state, { cwd, ...options.lock });
  try {
    removeAbandonedCreations(runs);
    const created = now();
    const runId = nextRunId(listRunIds(state), created);
    const staging = join(runs, `.${runId}.creating`);
    mkdirSync(staging);
    const stagingPlace = { file: join(staging, LEDGER_FILE), cwd };
    const db = openDb(stagingPlace, 'create');
    try {
      initialise(db, stagingPlace, { runId, createdAt: created.toISOString(), identity: normaliseIdentity(identity) });
    } finally {
      // Closing checkpoints the WAL into the file, so the folder holds one complete file to rename.
      db.close();
    }
    const runDir = join(runs, runId);
    renameSync(staging, runDir);
    // The rename must be on disk before any intent is: fsync the folder that holds the entry.
    fsyncDir(runs);
    return openLedger(runDir, lock, cwd, options, undefined);
  } catch (error) {
    lock.release();
    if (error instanceof LedgerError) throw error;
    throw new LedgerError('LEDGER', `cannot start a run in ${displayPath(runs, cwd)}: ${(error as Error).message}`, {
      cause: error,
    });
  }
}

/**
 * Reopens a run to continue it: takes its state directory's lock, checks the file
 * (`PRAGMA quick_check`), and refuses (RESUME_REFUSED) when the job, a mapping, an input file or
 * a payload option differs from what the run started with, saying what changed.
 */
export async function openForResume(
  runDir: string,
  identity: RunIdentity,
  options: LedgerOptions & {
    /**
     * The state directory whose sync state the resumed run reads and writes, and so whose lock it
     * takes. Default: the one holding the run folder. A run folder moved out of it (parked) is
     * resumed against another, which must be locked against that directory's next run.
     */
    readonly stateDir?: string;
  } = {},
): Promise<OpenLedger> {
  const cwd = options.cwd ?? process.cwd();
  const dir = resolve(runDir);
  if (!existsSync(ledgerFile(dir))) {
    throw new LedgerError('RESUME_REFUSED', `cannot resume: there is no run ledger in ${displayPath(dir, cwd)}`);
  }
  const lock = options.heldLock ?? acquireLock(options.stateDir ?? stateDirOf(dir), { cwd, ...options.lock });
  try {
    return openLedger(dir, lock, cwd, options, normaliseIdentity(identity));
  } catch (error) {
    lock.release();
    throw error;
  }
}

function openLedger(
  runDir: string,
  lock: StateLock,
  cwd: string,
  options: LedgerOptions,
  expected: RunIdentity | undefined,
): OpenLedger {
  const place = { file: ledgerFile(runDir), cwd };
  const db = openDb(place, 'existing');
  try {
    if (expected !== undefined) quickCheck(db, place);
    const meta = readMeta(db, place);
    // A ledger written before the sync outbox existed gains it (a resume records outcomes into it).
    db.exec(OUTBOX_SQL);
    let identity = meta.identity;
    if (expected !== undefined) {
      // A run that never recorded a row (stopped by a 401 on its first request) may go on with
      // another key or base URL: nothing was sent that another target could be confused with.
      const moved = targetChanges(meta.identity, expected, options.keyRotated === true);
      const changes = [
        ...identityChanges(meta.identity, expected, cwd),
        ...(moved.length > 0 && !isEmpty(db) ? moved : []),
      ];
      if (changes.length > 0) {
        throw new LedgerError(
          'RESUME_REFUSED',
          `cannot resume the run in ${displayPath(runDir, cwd)}: ${changes.join('; ')}. Put back what the run started with to resume it, or move the run folder away to start a new run (a plain run sends every row again; an incremental one skips the rows this run had accepted, but sends again those in flight when it stopped)`,
        );
      }
      // `--key-rotated`: the run goes on with the account's new key, and keeps its fingerprint.
      const rotated =
        options.keyRotated === true &&
        meta.identity.target !== undefined &&
        expected.target !== undefined &&
        meta.identity.target.keyFingerprint !== expected.target.keyFingerprint;
      if (moved.length > 0 || rotated) {
        storeIdentity(db, expected);
        identity = expected;
      }
    }
    return new SqliteLedger({
      db,
      place,
      runDir,
      runId: meta.runId,
      identity,
      finished: meta.finished,
      lock,
      schedule: options.schedule,
    });
  } catch (error) {
    try {
      db.close();
    } catch {
      // A damaged file may fail its closing checkpoint too; the first error is the one to report.
    }
    throw toLedgerError(place, error);
  }
}

/** Staging folders of a creation that crashed before its rename: never a run, safe to drop under the lock. */
function removeAbandonedCreations(runs: string): void {
  for (const name of readdirSync(runs)) {
    if (name.startsWith('.') && name.endsWith('.creating')) rmSync(join(runs, name), { recursive: true, force: true });
  }
}

function fsyncDir(dir: string): void {
  let fd: number | undefined;
  try {
    fd = openSync(dir, 'r');
    fsyncSync(fd);
  } catch (error) {
    // Some platforms (Windows) cannot open or fsync a directory; the rename is then as durable as the OS makes it.
    if (!['EISDIR', 'EPERM', 'EINVAL', 'EBADF'].includes((error as NodeJS.ErrnoException).code ?? '')) throw error;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}
