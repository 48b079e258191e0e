import Database from 'better-sqlite3';

/**
 * A private temporary SQLite database for one run's working keys (an empty file name: on disk,
 * deleted on close), with `schema` created. Its pages stay in memory up to 2 MB (the run's whole
 * budget is 200 MB), then spill to the temporary file, so millions of keys cost disk, not heap.
 * The caller opens one long transaction once its statements are prepared: nobody else reads it,
 * and a commit per batch would cost a sync each.
 */
export function scratchDb(schema: string): Database.Database {
  const db = new Database('');
  db.pragma('cache_size = -2000');
  db.exec(schema);
  return db;
}
