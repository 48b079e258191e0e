import type Database from 'better-sqlite3';
import { scratchDb } from './_scratch-db.js';
import type { SyncKey } from './sync-key.js';

/** A row's place in a run: the index of its mapping in run order, and its CSV line. */
export interface RowPlace {
  readonly source: number;
  readonly line: number;
}

/** Entity keys noted per insert statement: one bound JSON array, so the per-row cost is a JSON item, not a statement. */
const NOTE_BATCH = 512;

/**
 * The keys this run has met, to find rows that share one: for an entity the last row of the same
 * file wins (what the API ends with when both are sent), so earlier rows are superseded and this
 * needs every entity row noted before the first is classified (`noteEntity` in a first pass); for
 * an event the first row of the run wins, which a single pass decides (`winners`). Entity rows of
 * two files are never superseded by each other: two mappings of one resource may send different
 * fields of the same contact (an update sets only the fields it sends), so both are sent.
 *
 * Kept in a private temporary SQLite database (an empty file name: on disk, deleted on close),
 * not in a Map, so a run of millions of keys costs pages on disk rather than heap; only the
 * entity keys met more than once are held in memory for the second pass. Keys go in and come
 * out a batch per statement: a statement per row costs more than the rest of the row's scan.
 */
export class RunKeys {
  readonly #db: Database.Database;
  readonly #putEntities;
  readonly #getEntity;
  readonly #putEvents;
  readonly #getEvent;
  /** Entity rows noted and not yet inserted: `[resource, key, source, line]`. */
  #noted: [string, string, number, number][] = [];
  /** Entity keys noted more than once → their last row; built at the first `winners` call. */
  #duplicated: Map<string, RowPlace> | undefined;

  constructor() {
    // Entity keys are appended and sorted once, which needs few pages of the 2 MB cache. Event
    // identities are SHA-256 hashes, kept as 32-byte blobs (half their hex).
    this.#db = scratchDb(`
      CREATE TABLE noted_entity (resource TEXT NOT NULL, key TEXT NOT NULL, source INTEGER NOT NULL, line INTEGER NOT NULL);
      CREATE TABLE first_event (resource TEXT NOT NULL, key BLOB NOT NULL, source INTEGER NOT NULL, line INTEGER NOT NULL, PRIMARY KEY (resource, key)) WITHOUT ROWID;
    `);
    // Entity rows are appended in run order (no index to keep up per row) and grouped once, after
    // the first pass: a key met more than once is won by its last row, the one with the highest
    // rowid (SQLite takes the other columns of a max() group from the row that has the max).
    this.#putEntities = this.#db.prepare<[string]>(
      `INSERT INTO noted_entity SELECT j.value ->> 0, j.value ->> 1, j.value ->> 2, j.value ->> 3 FROM json_each(?) AS j`,
    );
    this.#getEntity = this.#db.prepare<[], { resource: string; key: string; source: number; line: number }>(
      `SELECT resource, key, source, line, max(rowid) FROM noted_entity GROUP BY resource, source, key HAVING count(*) > 1`,
    );
    // `WHERE true`: an upsert after INSERT … SELECT needs it, or SQLite reads ON as a join's.
    // Rows are inserted in the array's order, so of two rows of one identity in a batch the first
    // is inserted; RETURNING names the rows inserted, and only the others need asking who won.
    this.#putEvents = this.#db
      .prepare<[{ resource: string; source: number; rows: string }], number>(
        `INSERT INTO first_event SELECT @resource, unhex(j.value ->> 0), @source, j.value ->> 1 FROM json_each(@rows) AS j WHERE true
         ON CONFLICT DO NOTHING RETURNING line`,
      )
      .pluck();
    this.#getEvent = this.#db.prepare<[string, string], RowPlace>(
      `SELECT source, line FROM first_event WHERE resource = ? AND key = unhex(?)`,
    );
    // One long transaction: nobody else reads this database, and a commit per batch would cost a sync each.
    this.#db.exec('BEGIN');
  }

  /** First pass: a valid entity row, in run order (the later of two rows replaces the earlier). */
  noteEntity(key: SyncKey, place: RowPlace): void {
    if (this.#duplicated !== undefined) throw new Error('RunKeys: an entity row noted after the first winners() call');
    if (key.kind !== 'entity') return;
    if (this.#noted.push([key.resource, key.key, place.source, place.line]) >= NOTE_BATCH) this.#insertNoted();
  }

  /**
   * For each row of one source (`keys[i]` at `lines[i]`, in input order), the row that wins its
   * key when that is another row, else undefined. Entities: the last row noted with the key.
   * Events: the first row asked about with the identity.
   */
  winners(keys: readonly SyncKey[], source: number, lines: readonly number[]): (RowPlace | undefined)[] {
    const out = new Array<RowPlace | undefined>(keys.length).fill(undefined);
    const other = (win: RowPlace | undefined, line: number) =>
      win === undefined || (win.source === source && win.line === line) ? undefined : win;
    // Events of this batch by resource (a file has one resource; a mapping may mix both kinds).
    const events = new Map<string, number[]>();
    keys.forEach((key, i) => {
      if (key.kind === 'entity')
        out[i] = other(this.#duplicatedKeys().get(`${key.resource}\u0000${source}\u0000${key.key}`), lines[i]!);
      else {
        const at = events.get(key.resource) ?? [];
        events.set(key.resource, at);
        at.push(i);
      }
    });
    for (const [resource, at] of events) {
      const rows = JSON.stringify(at.map((i) => [keys[i]!.key, lines[i]!]));
      const inserted = new Set(this.#putEvents.all({ resource, source, rows }));
      for (const i of at) {
        // Not inserted: an earlier row (this batch or before) has the identity, or this row was asked about before.
        if (!inserted.has(lines[i]!)) out[i] = other(this.#getEvent.get(resource, keys[i]!.key), lines[i]!);
      }
    }
    return out;
  }

  close(): void {
    this.#db.close();
  }

  /** Once the first pass is over, only keys met more than once matter: usually few, so they are held in memory. */
  #duplicatedKeys(): Map<string, RowPlace> {
    if (this.#duplicated === undefined) {
      this.#insertNoted();
      this.#duplicated = new Map(
        this.#getEntity
          .all()
          .map((r) => [`${r.resource}\u0000${r.source}\u0000${r.key}`, { source: r.source, line: r.line }]),
      );
    }
    return this.#duplicated;
  }

  #insertNoted(): void {
    if (this.#noted.length === 0) return;
    this.#putEntities.run(JSON.stringify(this.#noted));
    this.#noted = [];
  }
}
