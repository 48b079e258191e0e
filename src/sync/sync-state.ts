import { makeFolders } from '../report/make-folders.js';
import { existsSync, statSync } from 'node:fs';
import { dirname } from 'node:path';
import type { ResourceName } from '../config/mapping-schema.js';
import { SyncError } from '../errors.js';
import { displayPath } from '../text/display-path.js';
import {
  DOUBT_PREFIX,
  guardState,
  openStateDb,
  PUT_MAPPING,
  quickCheckState,
  type Db,
  type StatePlace,
} from './_state-db.js';
import { applyFeed } from './apply-feed.js';
import { forgetKeys } from './forget-keys.js';
import type { LedgerSyncFeed } from './ledger-feed.js';
import type { SyncKey, SyncKind } from './sync-key.js';
import { checkTarget, readTarget, recordTarget, type StateTarget } from './state-target.js';

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

  /** Applies a run ledger's outcomes not applied yet (see `applyFeed`); returns how many. */
  apply(feed: LedgerSyncFeed): number {
    return applyFeed(this.#db, this.place, feed);
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

  /**
   * The latest run whose ledger was applied, accepted rows or not (a night when every row was
   * unchanged is applied too): run ids begin with their UTC start time, so the greatest is the latest.
   */
  latestRun(): string | undefined {
    return guardState(this.place, () => {
      const row = this.#db.prepare(`SELECT max(run_id) AS run FROM applied`).get() as { run: string | null };
      return row.run ?? undefined;
    });
  }

  /** Bytes on disk: the file and its write-ahead log. */
  size(): number {
    const sizeOf = (f: string) => (existsSync(f) ? statSync(f).size : 0);
    return sizeOf(this.place.file) + sizeOf(`${this.place.file}-wal`);
  }

  /** Forgets a resource, or one key of it (see `forgetKeys`); returns the number of rows forgotten. */
  forget(resource: ResourceName, key?: string): number {
    return forgetKeys(this.#db, this.place, resource, key);
  }

  /** Refuses a run against another account than the one the state describes (see `checkTarget`). */
  checkTarget(target: StateTarget, record: boolean, keyRotated = false): void {
    checkTarget(this.#db, this.place, target, record, keyRotated);
  }

  /** Records the state's target when it has none yet. */
  recordTarget(target: StateTarget): void {
    recordTarget(this.#db, this.place, target);
  }

  /** The target recorded, if any. */
  target(): StateTarget | undefined {
    return readTarget(this.#db, this.place);
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
