import { existsSync, closeSync, fsyncSync, mkdirSync, openSync, readdirSync, renameSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { LedgerError } from '../errors.js';
import { guard, initialise, openDb, quickCheck, readMeta, toLedgerError, type Db, type DbPlace } from './_database.js';
import { displayPath } from './_display-path.js';
import { GroupCommit } from './group-commit.js';
import { identityChanges, normaliseIdentity, type RunIdentity } from './identity.js';
import { acquireLock, type LockOptions, type LockOwner, type StateLock } from './lock.js';
import { LEDGER_FILE, ledgerFile, listRunIds, nextRunId, runsDir, stateDirOf } from './run-dirs.js';

/** Where a row stands: `intent` is committed before its request leaves, the others after the answer. */
export type LedgerState = 'intent' | 'ok' | 'failed' | 'unknown';

export interface LedgerEntry {
  readonly state: LedgerState;
  readonly status: number | null;
  readonly id: string | null;
  readonly message: string | null;
}

export interface Outcome {
  readonly state: 'ok' | 'failed' | 'unknown';
  readonly status?: number | undefined;
  readonly id?: string | undefined;
  readonly message?: string | undefined;
}

/**
 * The ledger of one run. A row is identified by `source` (the index of its mapping in the
 * run's order) and `line` (the CSV line where its record starts).
 */
export interface Ledger {
  readonly runId: string;
  readonly runDir: string;
  readonly finished: boolean;
  readonly identity: RunIdentity;
  /** Synchronous read of what is known of a row (fast: prepared statement), pending writes included. */
  get(source: number, line: number): LedgerEntry | undefined;
  /** Resolves once the intent is committed: only then may the request be sent. Refused for a row already `ok`. */
  recordIntent(source: number, line: number): Promise<void>;
  /** Resolves once the outcome is committed. */
  recordOutcome(source: number, line: number, outcome: Outcome): Promise<void>;
  /** Drops an `intent` whose request did not leave after all (401 before it, the run stopping); other states are kept. */
  forget(source: number, line: number): Promise<void>;
  /** Counts by state, for the summary and tests. */
  counts(): Record<LedgerState, number>;
  markFinished(): Promise<void>;
  /** Flush pending commits, release the lock. */
  close(): Promise<void>;
}

/** What createRun/openForResume return: the Ledger, plus what the CLI and the tests may want. */
export interface OpenLedger extends Ledger {
  /** `<run-dir>/ledger.sqlite`. */
  readonly file: string;
  /** Transactions committed by this handle: N writes in one tick make one (tests, cost measurement). */
  readonly commits: number;
  /** Set when the state directory's lock was left by a dead process and taken over (worth a line on stderr). */
  readonly lockTakenOverFrom: LockOwner | undefined;
}

export interface LedgerOptions {
  /** Paths in messages are shown relative to it. Default `process.cwd()`. */
  readonly cwd?: string;
  /** Passed to the state directory's lock (tests: pid, host, liveness). Default: this process. */
  readonly lock?: LockOptions;
  /** Schedules a group commit. Default `setImmediate` (see GroupCommit). */
  readonly schedule?: (flush: () => void) => void;
}

/**
 * Starts a run: takes the state directory's lock, then creates `<state-dir>/runs/<run-id>/`
 * with its ledger and identity. The folder is prepared under a hidden name and renamed into
 * place, so a crash while creating never leaves a run folder without its identity.
 */
export async function createRun(stateDir: string, identity: RunIdentity, now: () => Date = () => new Date(), options: LedgerOptions = {}): Promise<OpenLedger> {
  const cwd = options.cwd ?? process.cwd();
  const runs = runsDir(resolve(stateDir));
  mkdirSync(runs, { recursive: true });
  const lock = acquireLock(resolve(stateDir), { cwd, ...options.lock });
  try {
    removeAbandonedCreations(runs);
    const created = now();
    const runId = nextRunId(listRunIds(resolve(stateDir)), created);
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
    throw toLedgerError({ file: runs, cwd }, error);
  }
}

/**
 * Reopens a run to continue it: takes its state directory's lock, checks the file
 * (`PRAGMA quick_check`), and refuses (RESUME_REFUSED) when the job, a mapping, an input file or
 * a payload option differs from what the run started with, saying what changed.
 */
export async function openForResume(runDir: string, identity: RunIdentity, options: LedgerOptions = {}): Promise<OpenLedger> {
  const cwd = options.cwd ?? process.cwd();
  const dir = resolve(runDir);
  if (!existsSync(ledgerFile(dir))) {
    throw new LedgerError('RESUME_REFUSED', `cannot resume: there is no run ledger in ${displayPath(dir, cwd)}`);
  }
  const lock = acquireLock(stateDirOf(dir), { cwd, ...options.lock });
  try {
    return openLedger(dir, lock, cwd, options, normaliseIdentity(identity));
  } catch (error) {
    lock.release();
    throw error;
  }
}

function openLedger(runDir: string, lock: StateLock, cwd: string, options: LedgerOptions, expected: RunIdentity | undefined): OpenLedger {
  const place = { file: ledgerFile(runDir), cwd };
  const db = openDb(place, 'existing');
  try {
    if (expected !== undefined) quickCheck(db, place);
    const meta = readMeta(db, place);
    if (expected !== undefined) {
      const changes = identityChanges(meta.identity, expected, cwd);
      if (changes.length > 0) {
        throw new LedgerError(
          'RESUME_REFUSED',
          `cannot resume the run in ${displayPath(runDir, cwd)}: ${changes.join('; ')}. Put back what the run started with to resume it, or move the run folder away to start a new run (which sends every row again)`,
        );
      }
    }
    return new SqliteLedger(db, place, runDir, meta.runId, meta.identity, meta.finished, lock, options.schedule);
  } catch (error) {
    db.close();
    throw error;
  }
}

type Write =
  | { readonly kind: 'intent'; readonly source: number; readonly line: number }
  | { readonly kind: 'outcome'; readonly source: number; readonly line: number; readonly entry: LedgerEntry }
  | { readonly kind: 'forget'; readonly source: number; readonly line: number }
  | { readonly kind: 'finish'; readonly at: string };

interface RowRecord {
  state: LedgerState;
  status: number | null;
  id: string | null;
  message: string | null;
}

const key = (source: number, line: number) => `${source}:${line}`;

class SqliteLedger implements OpenLedger {
  readonly runId: string;
  readonly runDir: string;
  readonly identity: RunIdentity;
  readonly #db: Db;
  readonly #place: DbPlace;
  readonly #lock: StateLock;
  readonly #group: GroupCommit<Write>;
  readonly #select;
  readonly #countAll;
  /** Writes queued for the next commit, so `get` and `counts` already see them (null: forgotten). */
  readonly #pending = new Map<string, LedgerEntry | null>();
  #finished: boolean;
  #closing: Promise<void> | undefined;

  constructor(db: Db, place: DbPlace, runDir: string, runId: string, identity: RunIdentity, finished: boolean, lock: StateLock, schedule?: (flush: () => void) => void) {
    this.#db = db;
    this.#place = place;
    this.runDir = runDir;
    this.runId = runId;
    this.identity = identity;
    this.#finished = finished;
    this.#lock = lock;
    this.#select = db.prepare<[number, number], RowRecord>('SELECT state, status, id, message FROM rows WHERE source = ? AND line = ?');
    this.#countAll = db.prepare<[], { state: LedgerState; n: number }>('SELECT state, count(*) AS n FROM rows GROUP BY state');
    const intent = db.prepare(
      `INSERT INTO rows (source, line, state) VALUES (?, ?, 'intent')
       ON CONFLICT (source, line) DO UPDATE SET state = 'intent', status = NULL, id = NULL, message = NULL`,
    );
    const outcome = db.prepare(
      `INSERT INTO rows (source, line, state, status, id, message) VALUES (?, ?, ?, ?, ?, ?)
       ON CONFLICT (source, line) DO UPDATE SET state = excluded.state, status = excluded.status, id = excluded.id, message = excluded.message`,
    );
    const forget = db.prepare(`DELETE FROM rows WHERE source = ? AND line = ? AND state = 'intent'`);
    const finish = db.prepare(`INSERT INTO meta (key, value) VALUES ('finished_at', ?) ON CONFLICT (key) DO NOTHING`);
    const commit = db.transaction((batch: readonly Write[]) => {
      for (const w of batch) {
        if (w.kind === 'intent') intent.run(w.source, w.line);
        else if (w.kind === 'outcome') outcome.run(w.source, w.line, w.entry.state, w.entry.status, w.entry.id, w.entry.message);
        else if (w.kind === 'forget') forget.run(w.source, w.line);
        else finish.run(w.at);
      }
    });
    this.#group = new GroupCommit<Write>({
      commit: (batch) => {
        try {
          commit(batch);
        } catch (error) {
          throw toLedgerError(place, error);
        } finally {
          // Committed, or rolled back as a whole: either way the table now says it all.
          this.#pending.clear();
        }
      },
      ...(schedule ? { schedule } : {}),
    });
  }

  get file(): string {
    return this.#place.file;
  }

  get finished(): boolean {
    return this.#finished;
  }

  get commits(): number {
    return this.#group.commits;
  }

  get lockTakenOverFrom(): LockOwner | undefined {
    return this.#lock.takenOverFrom;
  }

  get(source: number, line: number): LedgerEntry | undefined {
    const k = key(source, line);
    if (this.#pending.has(k)) return this.#pending.get(k) ?? undefined;
    this.#assertOpen();
    const row = guard(this.#place, () => this.#select.get(source, line));
    return row === undefined ? undefined : { state: row.state, status: row.status, id: row.id, message: row.message };
  }

  recordIntent(source: number, line: number): Promise<void> {
    return this.#write(source, line, () => {
      const known = this.get(source, line);
      if (known?.state === 'ok') {
        // Events and product events are not idempotent: a second send is a duplicate (public-facts.md, Events).
        throw new LedgerError(
          'LEDGER',
          `refusing to send line ${line} of source ${source} again: the run ledger says it was applied already (HTTP ${known.status ?? '?'}${known.id !== null ? `, id ${known.id}` : ''})`,
        );
      }
      this.#pending.set(key(source, line), { state: 'intent', status: null, id: null, message: null });
      return { kind: 'intent', source, line };
    });
  }

  recordOutcome(source: number, line: number, outcome: Outcome): Promise<void> {
    return this.#write(source, line, () => {
      const entry: LedgerEntry = { state: outcome.state, status: outcome.status ?? null, id: outcome.id ?? null, message: outcome.message ?? null };
      this.#pending.set(key(source, line), entry);
      return { kind: 'outcome', source, line, entry };
    });
  }

  forget(source: number, line: number): Promise<void> {
    return this.#write(source, line, () => {
      if (this.get(source, line)?.state === 'intent') this.#pending.set(key(source, line), null);
      return { kind: 'forget', source, line };
    });
  }

  counts(): Record<LedgerState, number> {
    this.#assertOpen();
    const counts: Record<LedgerState, number> = { intent: 0, ok: 0, failed: 0, unknown: 0 };
    guard(this.#place, () => {
      for (const { state, n } of this.#countAll.all()) counts[state] = n;
      // Queued writes count already, as `get` shows them.
      for (const [k, entry] of this.#pending) {
        const [source, line] = k.split(':').map(Number) as [number, number];
        const stored = this.#select.get(source, line);
        if (stored !== undefined) counts[stored.state]--;
        if (entry !== null) counts[entry.state]++;
      }
    });
    return counts;
  }

  async markFinished(): Promise<void> {
    this.#assertOpen();
    await this.#group.enqueue({ kind: 'finish', at: new Date().toISOString() });
    this.#finished = true;
  }

  close(): Promise<void> {
    this.#closing ??= (async () => {
      try {
        await this.#group.close();
      } finally {
        try {
          // Closing the last connection checkpoints the WAL into the file and removes it.
          guard(this.#place, () => this.#db.close());
        } finally {
          this.#lock.release();
        }
      }
    })();
    return this.#closing;
  }

  #write(source: number, line: number, make: () => Write): Promise<void> {
    try {
      this.#assertOpen();
      if (!Number.isSafeInteger(source) || source < 0) throw new RangeError(`source must be an integer >= 0, got ${source}`);
      if (!Number.isSafeInteger(line) || line < 1) throw new RangeError(`line must be an integer >= 1, got ${line}`);
      return this.#group.enqueue(make());
    } catch (error) {
      return Promise.reject(error);
    }
  }

  #assertOpen(): void {
    if (this.#closing !== undefined) throw new LedgerError('LEDGER', `the run ledger ${displayPath(this.#place.file, this.#place.cwd)} is closed`);
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
