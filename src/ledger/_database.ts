import { isDamagedFileCode, quickCheckProblem } from '../sqlite-checks.js';
import { existsSync, statSync } from 'node:fs';
import { dirname } from 'node:path';
import Database from 'better-sqlite3';
import { LedgerError } from '../errors.js';
import { displayPath } from '../text/display-path.js';
import { RunIdentitySchema, type RunIdentity } from './identity.js';

export type Db = Database.Database;

/** 'EILG' (engage-import ledger): tells our ledger from any other SQLite file. */
const APPLICATION_ID = 0x45494c47;
/** Bumped when the schema changes; an older tool refuses a newer ledger instead of misreading it. */
const FORMAT_VERSION = 1;

/**
 * The sync outbox: one row per `ok` outcome that has a sync key, written in the same
 * transaction as the outcome, read back in `seq` order by the sync state (docs/incremental.md).
 * Created on open too (IF NOT EXISTS), so a ledger written before it existed gains it.
 */
export const OUTBOX_SQL = `
CREATE TABLE IF NOT EXISTS sync_outbox (
  seq INTEGER PRIMARY KEY AUTOINCREMENT,
  source INTEGER NOT NULL,
  line INTEGER NOT NULL,
  resource TEXT NOT NULL,
  kind TEXT NOT NULL CHECK (kind IN ('entity', 'event', 'doubt')),
  key TEXT NOT NULL,
  hash TEXT NOT NULL,
  at TEXT NOT NULL
) STRICT;
`;

// STRICT tables: `quick_check` then also verifies each column's type, so a flipped byte that
// turns a line number into text is caught on open instead of misleading the resume.
const SCHEMA = `
CREATE TABLE meta (
  key TEXT PRIMARY KEY NOT NULL,
  value TEXT NOT NULL
) STRICT, WITHOUT ROWID;
CREATE TABLE rows (
  source INTEGER NOT NULL CHECK (source >= 0),
  line INTEGER NOT NULL CHECK (line >= 1),
  state TEXT NOT NULL CHECK (state IN ('intent', 'ok', 'failed', 'unknown')),
  status INTEGER,
  id TEXT,
  message TEXT,
  CHECK (state <> 'intent' OR (status IS NULL AND id IS NULL AND message IS NULL)),
  PRIMARY KEY (source, line)
) STRICT, WITHOUT ROWID;
${OUTBOX_SQL}`;

export interface RunMeta {
  readonly runId: string;
  readonly createdAt: string;
  readonly identity: RunIdentity;
  readonly finished: boolean;
}

/** Where messages point the user to, and how they show paths. */
export interface DbPlace {
  readonly file: string;
  readonly cwd: string;
}

/**
 * Opens a ledger file with the settings every connection needs: WAL (readers never block the
 * writer, and a torn WAL tail is discarded on recovery) and `synchronous = FULL` (each commit is
 * fsynced: durable across power loss, not only a process crash). Each commit holding intents is
 * checkpointed into the main file at once (see SqliteLedger), so the file does not depend on its
 * WAL for the rows that may have been sent. Not persistent in the file, so set on every open.
 */
export function openDb(place: DbPlace, mode: 'create' | 'existing'): Db {
  // SQLite would take an empty file for a new database (and make it one); a ledger is never empty.
  if (mode === 'existing' && existsSync(place.file) && statSync(place.file).size === 0)
    throw damaged(place, 'the file is empty');
  return guard(place, () => {
    const db = new Database(place.file, { fileMustExist: mode === 'existing', timeout: 5_000 });
    try {
      db.pragma('journal_mode = WAL');
      db.pragma('synchronous = FULL');
      return db;
    } catch (error) {
      db.close();
      throw error;
    }
  });
}

/** Creates the schema and stores the run's identity, in one transaction. */
export function initialise(db: Db, place: DbPlace, meta: Omit<RunMeta, 'finished'>): void {
  guard(place, () => {
    db.transaction(() => {
      db.pragma(`application_id = ${APPLICATION_ID}`);
      db.pragma(`user_version = ${FORMAT_VERSION}`);
      db.exec(SCHEMA);
      const put = db.prepare('INSERT INTO meta (key, value) VALUES (?, ?)');
      put.run('run_id', meta.runId);
      put.run('created_at', meta.createdAt);
      put.run('identity', JSON.stringify(meta.identity));
    })();
  });
}

/** Reads what the run is; anything missing or malformed means the file is damaged. */
export function readMeta(db: Db, place: DbPlace): RunMeta {
  return guard(place, () => {
    const appId = db.pragma('application_id', { simple: true });
    const version = db.pragma('user_version', { simple: true });
    if (appId !== APPLICATION_ID) throw damaged(place, 'not an engage-import run ledger');
    if (version !== FORMAT_VERSION) {
      throw new LedgerError(
        'LEDGER',
        `the run ledger ${displayPath(place.file, place.cwd)} has format ${String(version)}, this engage-import reads format ${FORMAT_VERSION}; use the version that started the run`,
      );
    }
    const rows = db.prepare('SELECT key, value FROM meta').all() as { key: string; value: string }[];
    const meta = new Map(rows.map((r) => [r.key, r.value]));
    const runId = meta.get('run_id');
    const createdAt = meta.get('created_at');
    const identityJson = meta.get('identity');
    if (runId === undefined || createdAt === undefined || identityJson === undefined)
      throw damaged(place, 'its run identity is missing');
    let identity: RunIdentity;
    try {
      identity = RunIdentitySchema.parse(JSON.parse(identityJson));
    } catch {
      throw damaged(place, 'its run identity is unreadable');
    }
    return { runId, createdAt, identity, finished: meta.has('finished_at') };
  });
}

/** True when no row was ever recorded (not even an intent). */
export function isEmpty(db: Db): boolean {
  return db.prepare('SELECT count(*) FROM rows').pluck().get() === 0;
}

/** Replaces the stored identity (a run that recorded no row, resumed against another target). */
export function storeIdentity(db: Db, identity: RunIdentity): void {
  db.prepare(`UPDATE meta SET value = ? WHERE key = 'identity'`).run(JSON.stringify(identity));
}

/** SQLite's own consistency check of every page and constraint, without the slower index cross-check. */
export function quickCheck(db: Db, place: DbPlace): void {
  guard(place, () => {
    const problem = quickCheckProblem(db);
    if (problem !== undefined) throw damaged(place, problem);
  });
}

/** Runs `fn`, turning any SQLite failure into a LedgerError that names the file. */
export function guard<T>(place: DbPlace, fn: () => T): T {
  try {
    return fn();
  } catch (error) {
    throw toLedgerError(place, error);
  }
}

export function toLedgerError(place: DbPlace, error: unknown): LedgerError {
  if (error instanceof LedgerError) return error;
  if (!(error instanceof Database.SqliteError)) {
    const reason = error instanceof Error ? error.message : String(error);
    return new LedgerError('LEDGER', `cannot use the run ledger ${displayPath(place.file, place.cwd)}: ${reason}`, {
      cause: error,
    });
  }
  if (isDamagedFileCode(error.code)) return damaged(place, error.message, error);
  if (error.code.startsWith('SQLITE_CANTOPEN') && !existsSync(place.file)) {
    return new LedgerError('LEDGER', `there is no run ledger at ${displayPath(place.file, place.cwd)}`, {
      cause: error,
    });
  }
  return new LedgerError(
    'LEDGER',
    `cannot use the run ledger ${displayPath(place.file, place.cwd)}: ${error.message} (${error.code})`,
    { cause: error },
  );
}

/** The file cannot be trusted to say which rows were sent: say so, and what to do about it. */
export function damaged(place: DbPlace, detail: string, cause?: unknown): LedgerError {
  const file = displayPath(place.file, place.cwd);
  const runDir = displayPath(dirname(place.file), place.cwd);
  return new LedgerError(
    'LEDGER',
    `the run ledger ${file} is damaged (${detail}) and cannot tell which rows were sent; move the run folder ${runDir} away to start a new run (rows that run sent will be sent again: check the account for them first)`,
    cause === undefined ? undefined : { cause },
  );
}
