import type Database from 'better-sqlite3';
import { scratchDb } from './_scratch-db.js';
import type { RowPlace } from './run-keys.js';

/** An entity row an earlier file of the run sends: its request hash and where it is. */
export interface EarlierSend extends RowPlace {
  readonly hash: string;
}

/** Rows recorded or looked up per statement: one bound JSON array, as the state's lookups. */
const BATCH = 500;

/**
 * What the earlier files of a previewed run would send to each entity key, for the resources that
 * more than one file of the job sends. A live run applies each stage's accepted rows to the sync
 * state before the next stage, so a later file of the same resource is compared with what the
 * earlier one sent, not with the state as the night began: the preview compares the same way,
 * taking every row it would send as accepted.
 *
 * Kept in a scratch database (`scratchDb`), as RunKeys is: a first run of a large job would send
 * every row, more than a Map should hold.
 */
export class EarlierSends {
  readonly #db: Database.Database;
  readonly #put;
  readonly #get;

  constructor() {
    this.#db = scratchDb(
      'CREATE TABLE sent (resource TEXT NOT NULL, key TEXT NOT NULL, hash TEXT NOT NULL, source INTEGER NOT NULL, line INTEGER NOT NULL, PRIMARY KEY (resource, key)) WITHOUT ROWID',
    );
    // The later row replaces the earlier one: the account ends with the last request sent.
    this.#put = this.#db.prepare<[{ resource: string; rows: string }]>(
      `INSERT INTO sent SELECT @resource, j.value ->> 0, j.value ->> 1, j.value ->> 2, j.value ->> 3 FROM json_each(@rows) AS j WHERE true
       ON CONFLICT (resource, key) DO UPDATE SET hash = excluded.hash, source = excluded.source, line = excluded.line`,
    );
    this.#get = this.#db
      .prepare<[{ resource: string; keys: string }], [i: number, hash: string, source: number, line: number]>(
        `SELECT j.key, s.hash, s.source, s.line FROM json_each(@keys) AS j CROSS JOIN sent AS s ON s.resource = @resource AND s.key = j.value`,
      )
      .raw();
    this.#db.exec('BEGIN');
  }

  /** Rows of one source that the run would send, in input order. */
  record(resource: string, rows: readonly (EarlierSend & { readonly key: string })[]): void {
    for (let start = 0; start < rows.length; start += BATCH) {
      const batch = rows.slice(start, start + BATCH).map((r) => [r.key, r.hash, r.source, r.line]);
      this.#put.run({ resource, rows: JSON.stringify(batch) });
    }
  }

  /** For each key, what an earlier file of the run sends to it, if any. */
  find(resource: string, keys: readonly string[]): (EarlierSend | undefined)[] {
    const out = new Array<EarlierSend | undefined>(keys.length).fill(undefined);
    for (let start = 0; start < keys.length; start += BATCH) {
      const found = this.#get.all({ resource, keys: JSON.stringify(keys.slice(start, start + BATCH)) });
      for (const [i, hash, source, line] of found) out[start + i] = { hash, source, line };
    }
    return out;
  }

  close(): void {
    this.#db.close();
  }
}
