import Database from 'better-sqlite3';
import type { SyncKey } from './sync-key.js';

/** A row's place in a run: the index of its mapping in run order, and its CSV line. */
export interface RowPlace {
  readonly source: number;
  readonly line: number;
}

/**
 * The keys this run has met, to find rows that share one: for an entity the last row wins
 * (what the API ends with when both are sent), so earlier rows are superseded and this needs
 * every entity row noted before the first is classified (`noteEntity` in a first pass); for an
 * event the first row wins, which a single pass decides (`firstEvent`).
 *
 * Kept in a private temporary SQLite database (an empty file name: on disk, deleted on close),
 * not in a Map, so a run of millions of keys costs pages on disk rather than heap; only the
 * entity keys met more than once are held in memory for the second pass.
 */
export class RunKeys {
  readonly #db: Database.Database;
  readonly #putEntity;
  readonly #getEntity;
  readonly #putEvent;
  readonly #getEvent;
  /** Entity keys noted more than once → their last row; built at the first `winner` call. */
  #duplicated: Map<string, RowPlace> | undefined;

  constructor() {
    this.#db = new Database('');
    // Pages of the key tables stay in memory up to 8 MB (the run's whole budget is 200 MB), then spill to the temporary file.
    this.#db.pragma('cache_size = -8000');
    this.#db.exec(`
      CREATE TABLE last_entity (resource TEXT NOT NULL, key TEXT NOT NULL, source INTEGER NOT NULL, line INTEGER NOT NULL, rows INTEGER NOT NULL, PRIMARY KEY (resource, key)) WITHOUT ROWID;
      CREATE TABLE first_event (resource TEXT NOT NULL, key TEXT NOT NULL, source INTEGER NOT NULL, line INTEGER NOT NULL, PRIMARY KEY (resource, key)) WITHOUT ROWID;
    `);
    this.#putEntity = this.#db.prepare(
      `INSERT INTO last_entity VALUES (?, ?, ?, ?, 1) ON CONFLICT DO UPDATE SET source = excluded.source, line = excluded.line, rows = rows + 1`,
    );
    this.#getEntity = this.#db.prepare<[], { resource: string; key: string; source: number; line: number }>(
      `SELECT resource, key, source, line FROM last_entity WHERE rows > 1`,
    );
    this.#putEvent = this.#db.prepare(`INSERT INTO first_event VALUES (?, ?, ?, ?) ON CONFLICT DO NOTHING`);
    this.#getEvent = this.#db.prepare<[string, string], RowPlace>(
      `SELECT source, line FROM first_event WHERE resource = ? AND key = ?`,
    );
    // One long transaction: nobody else reads this database, and a commit per row would cost a sync each.
    this.#db.exec('BEGIN');
  }

  /** First pass: a valid entity row, in run order (the later of two rows replaces the earlier). */
  noteEntity(key: SyncKey, place: RowPlace): void {
    if (this.#duplicated !== undefined) throw new Error('RunKeys: an entity row noted after the first winner() call');
    if (key.kind === 'entity') this.#putEntity.run(key.resource, key.key, place.source, place.line);
  }

  /**
   * The row that wins this row's key when it is another row, else undefined. Entities: the last
   * row noted with the key. Events: the first row asked about with the identity.
   */
  winner(key: SyncKey, place: RowPlace): RowPlace | undefined {
    let win: RowPlace | undefined;
    if (key.kind === 'entity') {
      // Once the first pass is over, only keys met more than once matter: usually few, so they
      // are held in memory and the second pass asks SQLite nothing per entity row.
      this.#duplicated ??= new Map(
        this.#getEntity.all().map((r) => [`${r.resource}\u0000${r.key}`, { source: r.source, line: r.line }]),
      );
      win = this.#duplicated.get(`${key.resource}\u0000${key.key}`);
    } else if (this.#putEvent.run(key.resource, key.key, place.source, place.line).changes === 0)
      win = this.#getEvent.get(key.resource, key.key);
    return win === undefined || (win.source === place.source && win.line === place.line) ? undefined : win;
  }

  close(): void {
    this.#db.close();
  }
}
