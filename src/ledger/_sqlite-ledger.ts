import { LedgerError } from '../errors.js';
import { rmSync } from 'node:fs';
import { guard, isEmpty, toLedgerError, type Db, type DbPlace } from './_database.js';
import { displayPath } from '../text/display-path.js';
import { isApplied } from '../transport/in-doubt.js';
import { GroupCommit } from './group-commit.js';
import type { RunIdentity } from './identity.js';
import type { ResourceName } from '../config/mapping-schema.js';
import type { LedgerEntry, LedgerState, LineOutcome, OpenLedger, OutboxKey, Outcome } from './types.js';
import type { LockOwner, StateLock } from './lock.js';

type Write =
  | { readonly kind: 'intent'; readonly source: number; readonly line: number }
  | {
      readonly kind: 'outcome';
      readonly source: number;
      readonly line: number;
      readonly entry: LedgerEntry;
      readonly sync?: OutboxKey | undefined;
    }
  | { readonly kind: 'intents'; readonly source: number; readonly lines: readonly number[] }
  | { readonly kind: 'outcomes'; readonly source: number; readonly rows: readonly RowOutcome[] }
  | { readonly kind: 'fingerprints'; readonly json: string }
  | { readonly kind: 'forget'; readonly source: number; readonly line: number }
  | { readonly kind: 'finish'; readonly at: string }
  | { readonly kind: 'reopen' };

interface RowOutcome {
  readonly line: number;
  readonly entry: LedgerEntry;
  readonly sync?: OutboxKey | undefined;
}

/** The entry every queued intent shows (`get`): one object, however many rows are queued. */
const INTENT: LedgerEntry = Object.freeze({ state: 'intent', status: null, id: null, message: null });

interface RowRecord {
  state: LedgerState;
  status: number | null;
  id: string | null;
  message: string | null;
}

const key = (source: number, line: number) => `${source}:${line}`;

export interface SqliteLedgerParts {
  readonly db: Db;
  readonly place: DbPlace;
  readonly runDir: string;
  readonly runId: string;
  readonly identity: RunIdentity;
  readonly finished: boolean;
  readonly lock: StateLock;
  readonly schedule: ((flush: () => void) => void) | undefined;
}

/**
 * The Ledger over one open SQLite connection: reads through prepared statements, writes
 * through the group commit, and a view of queued writes so that reads never lag behind them.
 */
export class SqliteLedger implements OpenLedger {
  readonly runId: string;
  readonly runDir: string;
  readonly identity: RunIdentity;
  readonly #db: Db;
  readonly #place: DbPlace;
  readonly #lock: StateLock;
  readonly #group: GroupCommit<Write>;
  readonly #select;
  readonly #countAll;
  readonly #countUnknownBecause;
  readonly #firstApplied;
  /** Writes queued for the next commit, so `get` and `counts` already see them (null: forgotten). */
  readonly #pending = new Map<string, LedgerEntry | null>();
  readonly #listeners: (() => void)[] = [];
  #finished: boolean;
  #closing: Promise<boolean> | undefined;

  constructor({ db, place, runDir, runId, identity, finished, lock, schedule }: SqliteLedgerParts) {
    this.#db = db;
    this.#place = place;
    this.runDir = runDir;
    this.runId = runId;
    this.identity = identity;
    this.#finished = finished;
    this.#lock = lock;
    this.#select = db.prepare<[number, number], RowRecord>(
      'SELECT state, status, id, message FROM rows WHERE source = ? AND line = ?',
    );
    // One query for a whole chunk's lines: a statement per line cost about 6 µs each.
    this.#firstApplied = db.prepare<[number, string], { line: number }>(
      `SELECT line FROM rows WHERE source = ? AND state = 'ok' AND line IN (SELECT value FROM json_each(?)) ORDER BY line LIMIT 1`,
    );
    this.#countAll = db.prepare<[], { state: LedgerState; n: number }>(
      'SELECT state, count(*) AS n FROM rows GROUP BY state',
    );
    this.#countUnknownBecause = db
      .prepare<[string], number>(`SELECT count(*) FROM rows WHERE state = 'unknown' AND instr(message, ?) > 0`)
      .pluck();
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
    const reopen = db.prepare(`DELETE FROM meta WHERE key = 'finished_at'`);
    const outbox = db.prepare(
      `INSERT INTO sync_outbox (source, line, resource, kind, key, hash, at) VALUES (?, ?, ?, ?, ?, ?, ?)`,
    );
    const fingerprints = db.prepare(
      `INSERT INTO meta (key, value) VALUES ('fingerprints', ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value`,
    );
    const checkpoint = () => {
      const [result] = db.pragma('wal_checkpoint(PASSIVE)') as { busy: number; log: number; checkpointed: number }[];
      if (result !== undefined && (result.busy !== 0 || result.checkpointed < result.log)) {
        throw new LedgerError(
          'LEDGER',
          `the run ledger ${displayPath(place.file, place.cwd)} could not copy its intents into the main file (another process is reading it?)`,
        );
      }
    };
    const writeOutcome = (source: number, { line, entry, sync }: RowOutcome) => {
      outcome.run(source, line, entry.state, entry.status, entry.id, entry.message);
      // What the API accepted enters the sync state, in this same transaction; so does an event
      // in doubt (it may have been recorded), so that a later run never sends it again silently.
      const doubt = entry.state === 'unknown' && sync?.kind === 'event';
      if (sync !== undefined && (entry.state === 'ok' || doubt))
        outbox.run(
          source,
          line,
          sync.resource,
          doubt ? 'doubt' : sync.kind,
          sync.key,
          sync.hash,
          new Date().toISOString(),
        );
    };
    const commit = db.transaction((batch: readonly Write[]) => {
      for (const w of batch) {
        if (w.kind === 'intent') intent.run(w.source, w.line);
        else if (w.kind === 'intents') for (const line of w.lines) intent.run(w.source, line);
        else if (w.kind === 'outcome') writeOutcome(w.source, w);
        else if (w.kind === 'outcomes') for (const row of w.rows) writeOutcome(w.source, row);
        else if (w.kind === 'fingerprints') fingerprints.run(w.json);
        else if (w.kind === 'forget') forget.run(w.source, w.line);
        else if (w.kind === 'finish') finish.run(w.at);
        else reopen.run();
      }
    });
    this.#group = new GroupCommit<Write>({
      commit: (batch) => {
        try {
          commit(batch);
          // Intents go into the main file before their requests leave: a copy of ledger.sqlite
          // alone (a backup, a move, a deleted -wal after a crash) still knows every row that
          // may have been sent. Outcomes may stay in the WAL: losing one leaves the row's
          // intent, which a resume reports in doubt, never resends as new.
          if (batch.some((w) => w.kind === 'intent' || w.kind === 'intents')) checkpoint();
        } catch (error) {
          throw toLedgerError(place, error);
        } finally {
          // Committed, or rolled back as a whole: either way the table now says it all.
          this.#pending.clear();
        }
        // After the commit, outside it: a listener that fails (the sync state) never fails the ledger.
        for (const listener of this.#listeners) {
          try {
            listener();
          } catch {
            // The listener reports its own failures; the outbox keeps the rows for the next catch-up.
          }
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
    return this.#write(source, [line], () => {
      this.#refuseApplied(source, line);
      this.#pending.set(key(source, line), INTENT);
      return { kind: 'intent', source, line };
    });
  }

  recordIntents(source: number, lines: readonly number[]): Promise<void> {
    return this.#write(source, lines, () => {
      this.#refuseAppliedAmong(source, lines);
      for (const line of lines) this.#pending.set(key(source, line), INTENT);
      return { kind: 'intents', source, lines };
    });
  }

  recordOutcome(source: number, line: number, outcome: Outcome): Promise<void> {
    return this.#write(source, [line], () => {
      const entry = entryOf(outcome);
      this.#pending.set(key(source, line), entry);
      return { kind: 'outcome', source, line, entry, sync: outcome.sync };
    });
  }

  recordOutcomes(source: number, outcomes: readonly LineOutcome[]): Promise<void> {
    return this.#write(
      source,
      outcomes.map((o) => o.line),
      () => {
        const rows = outcomes.map(({ line, outcome }) => {
          const entry = entryOf(outcome);
          this.#pending.set(key(source, line), entry);
          return { line, entry, sync: outcome.sync };
        });
        return { kind: 'outcomes', source, rows };
      },
    );
  }

  /** A row the API applied is never sent again: for events and product events a second send is a duplicate. */
  #refuseApplied(source: number, line: number): void {
    const known = this.get(source, line);
    if (known !== undefined && isApplied(known.state)) {
      throw new LedgerError(
        'LEDGER',
        `refusing to send line ${line} of source ${source} again: the run ledger says it was applied already (HTTP ${known.status ?? '?'}${known.id !== null ? `, id ${known.id}` : ''})`,
      );
    }
  }

  /** `#refuseApplied` for many lines: queued writes first, then the table in one query. */
  #refuseAppliedAmong(source: number, lines: readonly number[]): void {
    const stored: number[] = [];
    for (const line of lines) {
      const k = key(source, line);
      if (this.#pending.has(k)) this.#refuseApplied(source, line);
      else stored.push(line);
    }
    if (stored.length === 0) return;
    const applied = guard(this.#place, () => this.#firstApplied.get(source, JSON.stringify(stored)));
    if (applied !== undefined) this.#refuseApplied(source, applied.line);
  }

  forget(source: number, line: number): Promise<void> {
    return this.#write(source, [line], () => {
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

  countUnknownBecause(why: string): number {
    this.#assertOpen();
    const because = (entry: { state: LedgerState; message: string | null } | undefined) =>
      entry?.state === 'unknown' && entry.message?.includes(why) === true ? 1 : 0;
    return guard(this.#place, () => {
      let n = this.#countUnknownBecause.get(why) ?? 0;
      for (const [k, entry] of this.#pending) {
        const [source, line] = k.split(':').map(Number) as [number, number];
        n += because(entry ?? undefined) - because(this.#select.get(source, line));
      }
      return n;
    });
  }

  async markFinished(): Promise<void> {
    this.#assertOpen();
    await this.#group.enqueue({ kind: 'finish', at: new Date().toISOString() });
    this.#finished = true;
  }

  async recordFingerprints(fingerprints: Readonly<Partial<Record<ResourceName, string>>>): Promise<void> {
    this.#assertOpen();
    await this.#group.enqueue({ kind: 'fingerprints', json: JSON.stringify(fingerprints) });
  }

  afterCommit(listener: () => void): void {
    this.#listeners.push(listener);
  }

  async reopen(): Promise<void> {
    this.#assertOpen();
    await this.#group.enqueue({ kind: 'reopen' });
    this.#finished = false;
  }

  close(): Promise<void> {
    return this.#close(false).then(() => undefined);
  }

  closeRemovingIfEmpty(): Promise<boolean> {
    return this.#close(true);
  }

  #close(removeIfEmpty: boolean): Promise<boolean> {
    this.#closing ??= (async () => {
      let removed = false;
      try {
        await this.#group.close();
      } finally {
        try {
          const empty = removeIfEmpty && guard(this.#place, () => isEmpty(this.#db));
          // Closing the last connection checkpoints the WAL into the file and removes it.
          guard(this.#place, () => this.#db.close());
          if (empty) {
            rmSync(this.runDir, { recursive: true, force: true });
            removed = true;
          }
        } finally {
          this.#lock.release();
        }
      }
      return removed;
    })();
    return this.#closing;
  }

  #write(source: number, lines: readonly number[], make: () => Write): Promise<void> {
    try {
      this.#assertOpen();
      if (!Number.isSafeInteger(source) || source < 0)
        throw new RangeError(`source must be an integer >= 0, got ${source}`);
      for (const line of lines)
        if (!Number.isSafeInteger(line) || line < 1) throw new RangeError(`line must be an integer >= 1, got ${line}`);
      return this.#group.enqueue(make());
    } catch (error) {
      return Promise.reject(error);
    }
  }

  #assertOpen(): void {
    if (this.#closing !== undefined)
      throw new LedgerError('LEDGER', `the run ledger ${displayPath(this.#place.file, this.#place.cwd)} is closed`);
  }
}

const entryOf = (outcome: Outcome): LedgerEntry => ({
  state: outcome.state,
  status: outcome.status ?? null,
  id: outcome.id ?? null,
  message: outcome.message ?? null,
});
