/**
 * The bulk chunks of a run, beside its rows, in the same ledger file (its own tables, created
 * when a run first uploads by bulk; the rows table is untouched). A chunk is recorded with its
 * rows (their lines and the keys the importer may echo, in upload order) and the chunk file in
 * the run folder before its upload, and its import id as soon as the upload is answered. A
 * resumed run asks, for a row still in flight (`intent`), which chunk it went in: a chunk with
 * an import id is polled, never uploaded again; one without (the answer was lost, or the run
 * stopped before the upload) is uploaded again, which is safe because the importer is an upsert.
 * Each write is its own committed transaction (`synchronous = FULL`), done synchronously.
 */
import Database from 'better-sqlite3';
import { guard, type DbPlace } from './_database.js';
import { ledgerFile } from './run-dirs.js';

const SCHEMA = `
CREATE TABLE IF NOT EXISTS bulk_chunks (
  chunk INTEGER PRIMARY KEY,
  source INTEGER NOT NULL CHECK (source >= 0),
  file TEXT NOT NULL,
  lines TEXT NOT NULL,
  keys TEXT NOT NULL,
  import_id TEXT
) STRICT;
CREATE TABLE IF NOT EXISTS bulk_chunk_rows (
  source INTEGER NOT NULL,
  line INTEGER NOT NULL,
  chunk INTEGER NOT NULL,
  PRIMARY KEY (source, line)
) STRICT, WITHOUT ROWID;
`;

/** A recorded chunk: its rows in upload order (lines, and keys as written), the file, the import once known. */
export interface BulkChunkRecord {
  readonly chunk: number;
  readonly source: number;
  readonly file: string;
  readonly lines: readonly number[];
  readonly keys: readonly (string | null)[];
  readonly importId: string | null;
}

export interface BulkChunks {
  /** Records a chunk before its upload; answers its number. */
  recordChunk(source: number, file: string, lines: readonly number[], keys: readonly (string | undefined)[]): number;
  /** Records the import the chunk's upload created. */
  recordImport(chunk: number, importId: string): void;
  /** The chunk a row last went in, if any. */
  chunkOf(source: number, line: number): BulkChunkRecord | undefined;
  close(): void;
}

export function openBulkChunks(runDir: string, cwd: string = process.cwd()): BulkChunks {
  const place: DbPlace = { file: ledgerFile(runDir), cwd };
  const db = guard(place, () => {
    const d = new Database(place.file, { fileMustExist: true, timeout: 5_000 });
    d.pragma('synchronous = FULL');
    d.exec(SCHEMA);
    return d;
  });
  const insertChunk = db.prepare('INSERT INTO bulk_chunks (source, file, lines, keys) VALUES (?, ?, ?, ?)');
  const insertRow = db.prepare('INSERT OR REPLACE INTO bulk_chunk_rows (source, line, chunk) VALUES (?, ?, ?)');
  const setImport = db.prepare('UPDATE bulk_chunks SET import_id = ? WHERE chunk = ?');
  const findRow = db.prepare('SELECT chunk FROM bulk_chunk_rows WHERE source = ? AND line = ?').pluck();
  const findChunk = db.prepare('SELECT chunk, source, file, lines, keys, import_id FROM bulk_chunks WHERE chunk = ?');
  const record = db.transaction(
    (source: number, file: string, lines: readonly number[], keys: readonly (string | undefined)[]) => {
      const chunk = Number(
        insertChunk.run(source, file, JSON.stringify(lines), JSON.stringify(keys.map((k) => k ?? null)))
          .lastInsertRowid,
      );
      for (const line of lines) insertRow.run(source, line, chunk);
      return chunk;
    },
  );
  const cache = new Map<number, BulkChunkRecord>();
  return {
    recordChunk: (source, file, lines, keys) => guard(place, () => record(source, file, lines, keys)),
    recordImport(chunk, importId) {
      guard(place, () => setImport.run(importId, chunk));
      cache.delete(chunk);
    },
    chunkOf(source, line) {
      const chunk = guard(place, () => findRow.get(source, line)) as number | undefined;
      if (chunk === undefined) return undefined;
      const known = cache.get(chunk);
      if (known !== undefined) return known;
      const row = guard(place, () => findChunk.get(chunk)) as
        | { chunk: number; source: number; file: string; lines: string; keys: string; import_id: string | null }
        | undefined;
      if (row === undefined) return undefined;
      const found: BulkChunkRecord = {
        chunk: row.chunk,
        source: row.source,
        file: row.file,
        lines: JSON.parse(row.lines) as number[],
        keys: JSON.parse(row.keys) as (string | null)[],
        importId: row.import_id,
      };
      cache.set(chunk, found);
      return found;
    },
    close: () => guard(place, () => db.close()),
  };
}
