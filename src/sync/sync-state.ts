import { makeFolders } from '../report/make-folders.js';
import { existsSync, statSync } from 'node:fs';
import { dirname } from 'node:path';
import type { ResourceName } from '../config/mapping-schema.js';
import { SyncError } from '../errors.js';
import { displayPath } from '../text/display-path.js';
import { guardState, openStateDb, quickCheckState, type Db, type StatePlace } from './_state-db.js';
import type { LedgerSyncFeed } from './ledger-feed.js';
import { identityHash } from './request-hash.js';
import type { SyncKey, SyncKind } from './sync-key.js';

/** Marks the run of an event identity whose outcome was unknown (see `classifyRow`). */
export const DOUBT_PREFIX = 'doubt:';

/** What the state holds for one key: the last accepted request (entities) or that it was accepted (events). */
export interface StoredEntry {
  /** Request hash (hex) last accepted for an entity key; undefined for an event identity. */
  readonly hash: string | undefined;
  readonly runId: string;
  readonly at: string;
  /** Found under the key an earlier version wrote (`SyncKey.legacy`), which does not say which mapping sent it. */
  readonly legacy?: true;
}

export interface ResourceCount {
  readonly resource: ResourceName;
  readonly kind: SyncKind;
  /** Keys (entities) or occurrences accepted (events). */
  readonly count: number;
  /** Events only: occurrences in doubt (they may have been recorded), when there are any. */
  readonly inDoubt?: number;
}

/** Where rows were sent: the base URL and a fingerprint of the API key (never the key). */
export interface StateTarget {
  readonly baseUrl: string;
  readonly keyFingerprint: string;
}

/** Which part of two targets differs (the base URL is named first), or undefined when they are the same. */
export function targetDifference(a: StateTarget, b: StateTarget): 'baseUrl' | 'keyFingerprint' | undefined {
  if (a.baseUrl !== b.baseUrl) return 'baseUrl';
  return a.keyFingerprint !== b.keyFingerprint ? 'keyFingerprint' : undefined;
}

export interface OpenStateOptions {
  /** Paths in messages are shown relative to it. Default `process.cwd()`. */
  readonly cwd?: string;
  /** `write` creates the file; the caller must hold the state directory's lock. Default `read`. */
  readonly mode?: 'read' | 'write';
  /** Run SQLite's page check on open (runs and imports do; `state show` need not). Default true. */
  readonly check?: boolean;
}

/** Keys per lookup statement: one bound JSON array, so one prepared statement serves every batch. */
const LOOKUP_BATCH = 500;
/** Deltas read from a ledger and applied per transaction. */
const APPLY_BATCH = 5_000;

/** A resource's mapping fingerprint, recorded by the run that accepted its rows (or its change). */
const PUT_MAPPING = `INSERT INTO mappings (resource, fingerprint, run_id, at) VALUES (?, ?, ?, ?)
  ON CONFLICT (resource) DO UPDATE SET fingerprint = excluded.fingerprint, run_id = excluded.run_id, at = excluded.at`;

/**
 * The sync state of one job: for each entity key the last request the API accepted, and each
 * event identity it accepted. Looked up in batches through prepared statements, never loaded
 * whole. It changes only by applying run ledgers' outboxes (`apply`), by `forget` and `replace`
 * (state commands), all under the state directory's lock.
 */
export class SyncState {
  readonly place: StatePlace;
  readonly #db: Db;
  readonly #entities;
  readonly #events;

  private constructor(db: Db, place: StatePlace) {
    this.#db = db;
    this.place = place;
    // One row per key asked, `i` its position in the batch: found rows come back with no map to build.
    // CROSS JOIN keeps json_each the outer loop (SQLite does not reorder it): a primary-key search
    // per key asked. Left to the planner, it may scan the whole table once per batch instead.
    // Rows come back as arrays and the hash as hex text: an object and a Buffer per row cost more
    // than the search itself.
    this.#entities = db
      .prepare<[{ resource: string; keys: string }], [i: number, hash: string, runId: string, at: string]>(
        `SELECT j.key, lower(hex(e.hash)), e.run_id, e.at FROM json_each(@keys) AS j CROSS JOIN entities AS e ON e.resource = @resource AND e.key = j.value`,
      )
      .raw();
    this.#events = db
      .prepare<[{ resource: string; keys: string }], [i: number, runId: string, at: string]>(
        `SELECT j.key, e.run_id, e.at FROM json_each(@keys) AS j CROSS JOIN events AS e ON e.resource = @resource AND e.identity = unhex(j.value)`,
      )
      .raw();
  }

  /**
   * Opens the state of a job. In `read` mode a missing file is an empty state (undefined): the
   * first run of a job has nothing to compare with. A file of a newer format, or a damaged one,
   * is refused (SyncError) and the caller sends nothing.
   */
  static open(file: string, job: string, options: OpenStateOptions = {}): SyncState | undefined {
    const place = { file, cwd: options.cwd ?? process.cwd() };
    const write = options.mode === 'write';
    if (!write && !existsSync(file)) return undefined;
    if (write) makeFolders(dirname(file));
    const db = openStateDb(place, write ? 'create' : 'existing', job);
    try {
      if (options.check ?? true) quickCheckState(db, place);
      const state = guardState(place, () => new SyncState(db, place));
      const stored = state.meta('job');
      if (stored === undefined)
        throw new SyncError(
          'SYNC_STATE',
          `the sync state ${displayPath(file, place.cwd)} does not say which job it belongs to; it is damaged`,
        );
      return state;
    } catch (error) {
      db.close();
      throw error;
    }
  }

  /** The job file this state belongs to (absolute path, as recorded when it was created). */
  get job(): string {
    return this.meta('job') ?? '';
  }

  /**
   * What the state holds for each key, in the order given (undefined: never accepted). Keys are
   * grouped by resource and kind and looked up `LOOKUP_BATCH` at a time.
   */
  lookup(keys: readonly SyncKey[]): (StoredEntry | undefined)[] {
    const out: (StoredEntry | undefined)[] = new Array<StoredEntry | undefined>(keys.length).fill(undefined);
    // Positions of the keys of each resource and kind (a file has one of each, so usually one group).
    const groups = new Map<string, { resource: ResourceName; kind: SyncKind; at: number[] }>();
    keys.forEach((k, i) => {
      const id = `${k.kind}\u0000${k.resource}`;
      const g = groups.get(id) ?? { resource: k.resource, kind: k.kind, at: [] };
      groups.set(id, g);
      g.at.push(i);
    });
    guardState(this.place, () => {
      for (const g of groups.values()) {
        for (let start = 0; start < g.at.length; start += LOOKUP_BATCH) {
          const positions = g.at.slice(start, start + LOOKUP_BATCH);
          const batch = JSON.stringify(positions.map((p) => keys[p]!.key));
          if (g.kind === 'entity') {
            for (const [i, hash, runId, at] of this.#entities.all({ resource: g.resource, keys: batch }))
              out[positions[i]!] = { hash, runId, at };
          } else {
            for (const [i, runId, at] of this.#events.all({ resource: g.resource, keys: batch }))
              out[positions[i]!] = { hash: undefined, runId, at };
          }
        }
      }
    });
    return out;
  }

  /**
   * As `lookup`, and a key the state does not hold is looked up again as an earlier version wrote
   * it (`SyncKey.legacy`): found so, it is marked `legacy` (an occurrence: no request hash).
   */
  lookupWithLegacy(keys: readonly SyncKey[]): (StoredEntry | undefined)[] {
    const stored = this.lookup(keys);
    const missing = keys.flatMap((k, i) => (stored[i] === undefined && k.legacy !== undefined ? [i] : []));
    if (missing.length === 0) return stored;
    const old = this.lookup(
      missing.map((i) => {
        const k = keys[i]!;
        return { ...k, ...k.legacy!() };
      }),
    );
    missing.forEach((i, n) => {
      const entry = old[n];
      if (entry !== undefined) stored[i] = { hash: undefined, runId: entry.runId, at: entry.at, legacy: true };
    });
    return stored;
  }

  /** The runs whose events the state holds in doubt (their answers were lost), with how many each. */
  doubtRuns(): { readonly runId: string; readonly count: number }[] {
    return guardState(this.place, () =>
      (
        this.#db
          .prepare(
            `SELECT substr(run_id, ${DOUBT_PREFIX.length + 1}) AS runId, count(*) AS count FROM events
             WHERE run_id LIKE '${DOUBT_PREFIX}%' GROUP BY run_id ORDER BY run_id`,
          )
          .all() as { runId: string; count: number }[]
      ).map((r) => ({ runId: r.runId, count: r.count })),
    );
  }

  /** The fingerprint of the mapping the resource's rows were last accepted with. */
  mappingFingerprint(resource: ResourceName): string | undefined {
    return guardState(
      this.place,
      () =>
        (
          this.#db.prepare(`SELECT fingerprint FROM mappings WHERE resource = ?`).get(resource) as
            | { fingerprint: string }
            | undefined
        )?.fingerprint,
    );
  }

  /**
   * Records mapping fingerprints the operator accepted (`--accept-mapping-change`) for these
   * resources, whether or not the run goes on to accept a row of them: otherwise a night that
   * sends none (every event already sent, or skipped) would leave the old fingerprint, and the
   * next night would be refused again.
   */
  acceptMappings(fingerprints: Readonly<Record<string, string>>, resources: readonly string[], runId: string): void {
    const at = new Date().toISOString();
    const put = this.#db.prepare(PUT_MAPPING);
    guardState(this.place, () =>
      this.#db.transaction(() => {
        for (const resource of resources) {
          const fingerprint = fingerprints[resource];
          if (fingerprint !== undefined) put.run(resource, fingerprint, runId, at);
        }
      })(),
    );
  }

  /** Whether a run's outbox has been applied to its end and the run had finished: it is never read again. */
  isComplete(runId: string): boolean {
    return guardState(
      this.place,
      () =>
        (
          this.#db.prepare(`SELECT complete FROM applied WHERE run_id = ?`).get(runId) as
            | { complete: number }
            | undefined
        )?.complete === 1,
    );
  }

  /**
   * Brings the state up to date with one run's ledger: applies the deltas it has not applied
   * yet, in the ledger's commit order, each batch in one transaction together with how far it
   * got. Idempotent: calling it again after a crash, or twice, applies nothing twice.
   * Returns the number of deltas applied.
   */
  apply(feed: LedgerSyncFeed): number {
    const get = this.#db.prepare<[string], { seq: number; complete: number }>(
      `SELECT seq, complete FROM applied WHERE run_id = ?`,
    );
    const putEntity = this.#db.prepare(
      `INSERT INTO entities (resource, key, hash, run_id, at) VALUES (?, ?, unhex(?), ?, ?)
       ON CONFLICT (resource, key) DO UPDATE SET hash = excluded.hash, run_id = excluded.run_id, at = excluded.at`,
    );
    // An event identity keeps the run that first sent it: a later full refresh does not make it newer news.
    // An event in doubt is kept under `doubt:<run>` until an accepted send of it replaces it; it
    // never replaces an accepted one.
    const putEvent = this.#db.prepare(
      `INSERT INTO events (resource, identity, run_id, at) VALUES (?, unhex(?), ?, ?)
       ON CONFLICT (resource, identity) DO UPDATE SET run_id = excluded.run_id, at = excluded.at WHERE events.run_id LIKE '${DOUBT_PREFIX}%'`,
    );
    const putDoubt = this.#db.prepare(
      `INSERT INTO events (resource, identity, run_id, at) VALUES (?, unhex(?), '${DOUBT_PREFIX}' || ?, ?) ON CONFLICT DO NOTHING`,
    );
    const putMapping = this.#db.prepare(PUT_MAPPING);
    const putApplied = this.#db.prepare(
      `INSERT INTO applied (run_id, seq, complete) VALUES (?, ?, ?) ON CONFLICT (run_id) DO UPDATE SET seq = excluded.seq, complete = excluded.complete`,
    );
    const putMeta = this.#db.prepare(
      `INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value`,
    );
    let applied = 0;
    return guardState(this.place, () => {
      for (;;) {
        const known = get.get(feed.runId);
        const after = known?.seq ?? 0;
        // A complete run may still grow: `resume --resend-unknown` reopens a finished run and
        // records the rows it resends (its own feed is applied here, catch-up skips it).
        if (known?.complete === 1 && feed.deltasAfter(after, 1).length === 0) return applied;
        const batch = feed.deltasAfter(after, APPLY_BATCH);
        const last = batch.at(-1);
        const complete = batch.length < APPLY_BATCH && feed.finished;
        if (last === undefined && !complete) return applied;
        this.#db.transaction(() => {
          const resources = new Map<ResourceName, string>();
          let prev = after;
          for (const d of batch) {
            if (!(d.seq > prev))
              throw new SyncError(
                'SYNC_STATE',
                `the run ledger of run ${feed.runId} gave its outcomes out of order (${d.seq} after ${prev}); the sync state was not changed`,
              );
            prev = d.seq;
            if (d.kind === 'entity') putEntity.run(d.resource, d.key, d.hash, feed.runId, d.at);
            else if (d.kind === 'doubt') putDoubt.run(d.resource, d.key, feed.runId, d.at);
            else putEvent.run(d.resource, d.key, feed.runId, d.at);
            resources.set(d.resource, d.at);
          }
          for (const [resource, at] of resources) {
            const fingerprint = feed.fingerprints[resource];
            if (fingerprint !== undefined) putMapping.run(resource, fingerprint, feed.runId, at);
          }
          putApplied.run(feed.runId, last?.seq ?? after, complete ? 1 : 0);
          if (last !== undefined) {
            putMeta.run('last_run_id', feed.runId);
            putMeta.run('last_applied_at', last.at);
          }
        })();
        applied += batch.length;
        if (complete || batch.length < APPLY_BATCH) return applied;
      }
    });
  }

  /** Rows per resource and kind, for `state show`. */
  counts(): ResourceCount[] {
    return guardState(this.place, () => [
      ...(
        this.#db
          .prepare(`SELECT resource, count(*) AS count FROM entities GROUP BY resource ORDER BY resource`)
          .all() as { resource: ResourceName; count: number }[]
      ).map((r) => ({ ...r, kind: 'entity' as const })),
      ...(
        this.#db
          .prepare(
            `SELECT resource, count(*) FILTER (WHERE run_id NOT LIKE '${DOUBT_PREFIX}%') AS count,
                    count(*) FILTER (WHERE run_id LIKE '${DOUBT_PREFIX}%') AS inDoubt
             FROM events GROUP BY resource ORDER BY resource`,
          )
          .all() as { resource: ResourceName; count: number; inDoubt: number }[]
      ).map(({ resource, count, inDoubt }) => ({
        resource,
        kind: 'event' as const,
        count,
        // Occurrences that may have been recorded (a lost answer): never resent until resolved.
        ...(inDoubt > 0 && { inDoubt }),
      })),
    ]);
  }

  /** The run whose outcomes were applied last, and when its last applied outcome was committed. */
  lastRun(): { runId: string; at: string } | undefined {
    const runId = this.meta('last_run_id');
    const at = this.meta('last_applied_at');
    return runId === undefined || at === undefined ? undefined : { runId, at };
  }

  /** Bytes on disk: the file and its write-ahead log. */
  size(): number {
    const sizeOf = (f: string) => (existsSync(f) ? statSync(f).size : 0);
    return sizeOf(this.place.file) + sizeOf(`${this.place.file}-wal`);
  }

  /**
   * Forgets what the state knows of a resource, or of one key of it (`C-1001` matches the
   * entity keys `custom_id=C-1001` and `id=C-1001`; an event is named by its identity hash), so
   * the next incremental run sends those rows again. Returns the number of rows forgotten.
   */
  forget(resource: ResourceName, key?: string): number {
    return guardState(this.place, () =>
      this.#db.transaction(() => {
        if (key === undefined) {
          const n =
            this.#db.prepare(`DELETE FROM entities WHERE resource = ?`).run(resource).changes +
            this.#db.prepare(`DELETE FROM events WHERE resource = ?`).run(resource).changes;
          this.#db.prepare(`DELETE FROM mappings WHERE resource = ?`).run(resource);
          return n;
        }
        // A bare key names `custom_id=K` or `id=K`; when the state holds both (a deal updated by
        // id 42 and another with custom_id 42), guessing could forget the wrong one. A key given
        // whole (`id=42`) is that key, or else a custom_id that reads so (`custom_id=id=42`).
        const holds = (k: string) =>
          this.#db.prepare(`SELECT 1 FROM entities WHERE resource = ? AND key = ?`).get(resource, k) !== undefined;
        const whole = /^(custom_id|id)=/.test(key) && holds(key);
        const named = whole ? [key] : [`custom_id=${key}`, `id=${key}`];
        const held = named.filter(holds);
        if (held.length > 1)
          throw new SyncError(
            'SYNC_STATE',
            `the sync state holds both ${held.join(' and ')} for ${resource}: say which with --key ${held.join(' or --key ')}`,
          );
        const entities =
          held[0] === undefined
            ? 0
            : this.#db.prepare(`DELETE FROM entities WHERE resource = ? AND key = ?`).run(resource, held[0]).changes;
        // Events by identity hash; a deal create by the custom_id it was created with.
        const createdAs = [`custom_id=${key}`, ...(key.startsWith('custom_id=') ? [key] : [])];
        const identities = [
          key,
          ...(resource === 'deal' ? createdAs.map((k) => identityHash('deal', [k])) : []),
        ].filter((k) => /^[0-9a-f]{64}$/i.test(k));
        let events = 0;
        for (const identity of identities)
          events += this.#db
            .prepare(`DELETE FROM events WHERE resource = ? AND identity = unhex(?)`)
            .run(resource, identity).changes;
        return entities + events;
      })(),
    );
  }

  /**
   * The account this state describes (base URL and API key fingerprint, as a run identity holds
   * them). The first run that writes the state records it; a run against another target is
   * refused (SYNC_STATE) before anything is sent: the other account has none of these rows, so
   * skipping them there as `unchanged` would be wrong. `record` stores it when none is.
   */
  checkTarget(
    target: StateTarget,
    record: boolean,
    /** `--key-rotated`: the operator says the new key is this account's; the state takes it. */
    keyRotated = false,
  ): void {
    const was = this.target();
    if (was === undefined) {
      if (record) this.recordTarget(target);
      return;
    }
    const differs = targetDifference(was, target);
    if (differs === undefined) return;
    // A state that holds no row says nothing about its target's account: the run that recorded it
    // was stopped before the API accepted anything (a 401 on a mistyped key, a base URL that never
    // answered). The corrected target takes its place.
    if (this.#holdsNoRow() || (differs === 'keyFingerprint' && keyRotated)) {
      if (record) this.#replaceTarget(target);
      return;
    }
    const why =
      differs === 'baseUrl'
        ? `the base URL ${was.baseUrl}, not ${target.baseUrl}`
        : 'another API key (another account?)';
    const rotated =
      differs === 'keyFingerprint'
        ? " If it is this account's key, rotated since, run again with --key-rotated: the state then keeps the new one."
        : '';
    throw new SyncError(
      'SYNC_STATE',
      `the sync state ${displayPath(this.place.file, this.place.cwd)} records what was sent with ${why}; nothing was sent.${rotated} Else use --state-dir with another folder for this target (its first run sends every row), or run against the target the state belongs to`,
    );
  }

  /** Records the state's target (base URL and key fingerprint only), when it has none yet. */
  recordTarget(target: StateTarget): void {
    guardState(this.place, () =>
      this.#db
        .prepare(`INSERT INTO meta (key, value) VALUES ('target', ?) ON CONFLICT (key) DO NOTHING`)
        .run(JSON.stringify({ baseUrl: target.baseUrl, keyFingerprint: target.keyFingerprint })),
    );
  }

  #replaceTarget(target: StateTarget): void {
    guardState(this.place, () =>
      this.#db
        .prepare(`UPDATE meta SET value = ? WHERE key = 'target'`)
        .run(JSON.stringify({ baseUrl: target.baseUrl, keyFingerprint: target.keyFingerprint })),
    );
  }

  #holdsNoRow(): boolean {
    return guardState(
      this.place,
      () =>
        this.#db
          .prepare(`SELECT NOT EXISTS (SELECT 1 FROM entities) AND NOT EXISTS (SELECT 1 FROM events)`)
          .pluck()
          .get() === 1,
    );
  }

  /** The target recorded by `checkTarget`, if any. */
  target(): StateTarget | undefined {
    const stored = this.meta('target');
    return stored === undefined ? undefined : (JSON.parse(stored) as StateTarget);
  }

  /** The connection, for the export and import that stream the whole state (state-transfer.ts). */
  get db(): Db {
    return this.#db;
  }

  close(): void {
    // Closing the last connection checkpoints the WAL into the file and removes it.
    guardState(this.place, () => this.#db.close());
  }

  meta(key: string): string | undefined {
    return guardState(
      this.place,
      () => (this.#db.prepare(`SELECT value FROM meta WHERE key = ?`).get(key) as { value: string } | undefined)?.value,
    );
  }
}
