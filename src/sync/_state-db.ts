import { isDamagedFileCode, quickCheckProblem } from '../sqlite-checks.js';
import { existsSync, statSync } from 'node:fs';
import Database from 'better-sqlite3';
import { SyncError } from '../errors.js';
import { displayPath } from '../text/display-path.js';

export type Db = Database.Database;

/** 'EISS' (engage-import sync state): tells the sync state from a run ledger or any other SQLite file. */
const APPLICATION_ID = 0x45495353;
/**
 * The format of the file, in `PRAGMA user_version`: readable before any table is, so a newer
 * format may change every table and an older tool still refuses it with the right message.
 */
export const STATE_FORMAT = 1;

// STRICT tables, as the run ledger's: `quick_check` then also catches a value of the wrong type.
// Hashes are 32-byte blobs (half the size of hex), keys of a table are its primary key, so a
// lookup is one B-tree search and the table is its own index (WITHOUT ROWID).
const SCHEMA = `
CREATE TABLE meta (
  key TEXT PRIMARY KEY NOT NULL,
  value TEXT NOT NULL
) STRICT, WITHOUT ROWID;
CREATE TABLE entities (
  resource TEXT NOT NULL,
  key TEXT NOT NULL,
  hash BLOB NOT NULL CHECK (length(hash) = 32),
  run_id TEXT NOT NULL,
  at TEXT NOT NULL,
  PRIMARY KEY (resource, key)
) STRICT, WITHOUT ROWID;
CREATE TABLE events (
  resource TEXT NOT NULL,
  identity BLOB NOT NULL CHECK (length(identity) = 32),
  run_id TEXT NOT NULL,
  at TEXT NOT NULL,
  PRIMARY KEY (resource, identity)
) STRICT, WITHOUT ROWID;
CREATE TABLE mappings (
  resource TEXT PRIMARY KEY NOT NULL,
  fingerprint TEXT NOT NULL,
  run_id TEXT NOT NULL,
  at TEXT NOT NULL
) STRICT, WITHOUT ROWID;
CREATE TABLE applied (
  run_id TEXT PRIMARY KEY NOT NULL,
  seq INTEGER NOT NULL CHECK (seq >= 0),
  complete INTEGER NOT NULL CHECK (complete IN (0, 1))
) STRICT, WITHOUT ROWID;
`;

/** Marks the run of an event identity whose outcome was unknown (see `classifyRow`). */
export const DOUBT_PREFIX = 'doubt:';

/** A resource's mapping fingerprint, recorded by the run that accepted its rows (or its change). */
export const PUT_MAPPING = `INSERT INTO mappings (resource, fingerprint, run_id, at) VALUES (?, ?, ?, ?)
  ON CONFLICT (resource) DO UPDATE SET fingerprint = excluded.fingerprint, run_id = excluded.run_id, at = excluded.at`;

/** The state's file and how messages show paths. */
export interface StatePlace {
  readonly file: string;
  readonly cwd: string;
}

/**
 * Opens (or creates) the sync state with the run ledger's settings: WAL, so a preview reads
 * while a run writes, and `synchronous = FULL`, so an applied outcome survives a power loss.
 */
export function openStateDb(place: StatePlace, mode: 'create' | 'existing', job: string): Db {
  if (existsSync(place.file) && statSync(place.file).size === 0) throw damagedState(place, 'the file is empty');
  return guardState(place, () => {
    const db = new Database(place.file, { fileMustExist: mode === 'existing', timeout: 5_000 });
    try {
      db.pragma('journal_mode = WAL');
      db.pragma('synchronous = FULL');
      const appId = db.pragma('application_id', { simple: true });
      const version = db.pragma('user_version', { simple: true }) as number;
      if (appId === 0 && version === 0 && mode === 'create' && isEmpty(db)) initialise(db, job);
      else checkFormat(place, appId, version);
      return db;
    } catch (error) {
      db.close();
      throw error;
    }
  });
}

function isEmpty(db: Db): boolean {
  return (db.prepare(`SELECT count(*) AS n FROM sqlite_schema`).get() as { n: number }).n === 0;
}

function initialise(db: Db, job: string): void {
  db.transaction(() => {
    db.pragma(`application_id = ${APPLICATION_ID}`);
    db.pragma(`user_version = ${STATE_FORMAT}`);
    db.exec(SCHEMA);
    db.prepare(`INSERT INTO meta (key, value) VALUES ('job', ?)`).run(job);
  })();
}

function checkFormat(place: StatePlace, appId: unknown, version: number): void {
  if (appId !== APPLICATION_ID) throw damagedState(place, 'not an engage-import sync state');
  if (version > STATE_FORMAT) {
    throw new SyncError(
      'SYNC_STATE',
      `the sync state ${displayPath(place.file, place.cwd)} was written by a newer engage-import (format ${version}; this one reads format ${STATE_FORMAT}); nothing was sent. Use that version or a newer one`,
    );
  }
  if (version !== STATE_FORMAT) throw damagedState(place, `unknown format ${version}`);
}

/** SQLite's own page and constraint check, run when a state is opened for a run. */
export function quickCheckState(db: Db, place: StatePlace): void {
  guardState(place, () => {
    const problem = quickCheckProblem(db);
    if (problem !== undefined) throw damagedState(place, problem);
  });
}

/** Runs `fn`, turning any SQLite failure into a SyncError that names the state file. */
export function guardState<T>(place: StatePlace, fn: () => T): T {
  try {
    return fn();
  } catch (error) {
    throw toStateError(place, error);
  }
}

export function toStateError(place: StatePlace, error: unknown): SyncError {
  if (error instanceof SyncError) return error;
  const file = displayPath(place.file, place.cwd);
  if (error instanceof Database.SqliteError) {
    if (isDamagedFileCode(error.code)) return damagedState(place, error.message, error);
    return new SyncError('SYNC_STATE', `cannot use the sync state ${file}: ${error.message} (${error.code})`, {
      cause: error,
    });
  }
  const reason = error instanceof Error ? error.message : String(error);
  return new SyncError('SYNC_STATE', `cannot use the sync state ${file}: ${reason}`, { cause: error });
}

/**
 * A state that cannot be trusted to say what was accepted: refused, and nothing is sent, since
 * guessing would either resend events or skip rows the account never got.
 */
export function damagedState(place: StatePlace, detail: string, cause?: unknown): SyncError {
  const file = displayPath(place.file, place.cwd);
  return new SyncError(
    'SYNC_STATE',
    `the sync state ${file} is damaged (${detail}) and cannot tell which rows the account already has; nothing was sent. Restore it with 'engage-import state import' from an export, or move it away to start an empty state (the next run then sends every row again, events included)`,
    cause === undefined ? undefined : { cause },
  );
}
