/**
 * The bulk chunks of a run, beside its rows, in the same ledger file (its own tables, created
 * when a run first uploads by bulk; the rows table is untouched). A chunk is recorded with its
 * rows (their lines and the keys the importer may echo, in upload order) and the chunk file in
 * the run folder before its upload, and its import id as soon as the upload is answered. A
 * resumed run asks, for a row still in flight (`intent`), which chunk it went in: a chunk with
 * an import id is polled, never uploaded again; one without (the answer was lost, or the run
 * stopped before the upload) is uploaded again, which is safe because the importer is an upsert.
 *
 * The re-uploads that name failures an import counted but did not list (bisection) are recorded
 * the same way, as sub-imports of their chunk: their rows (positions in the chunk file) before the
 * upload, their import id after the answer. Bisection is a pure function of the imports' reports,
 * so a resume that polls the chunk's import asks for the same sets again, in the same order: a set
 * recorded with an import id is polled, one recorded without (its answer was lost) is uploaded again.
 * Each write is its own committed transaction (`synchronous = FULL`), done synchronously.
 */
import Database from 'better-sqlite3';
import { isAbsolute, join, relative, resolve } from 'node:path';
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
CREATE TABLE IF NOT EXISTS bulk_sub_imports (
  sub INTEGER PRIMARY KEY,
  chunk INTEGER NOT NULL,
  positions TEXT NOT NULL,
  import_id TEXT
) STRICT;
CREATE INDEX IF NOT EXISTS bulk_sub_imports_by_chunk ON bulk_sub_imports (chunk, sub);
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

/** A re-upload of some of a chunk's rows: their positions in the chunk file (ascending), the import once known. */
export interface BulkSubImport {
  readonly sub: number;
  readonly positions: readonly number[];
  readonly importId: string | null;
}

export interface BulkChunks {
  /** Records a chunk before its upload; answers its number. */
  recordChunk(source: number, file: string, lines: readonly number[], keys: readonly (string | undefined)[]): number;
  /** Records the import the chunk's upload created. */
  recordImport(chunk: number, importId: string): void;
  /** Records a re-upload of the chunk's rows at `positions` before it leaves; answers its number. */
  recordSubImport(chunk: number, positions: readonly number[]): number;
  /** Records the import a re-upload created. */
  recordSubImportId(sub: number, importId: string): void;
  /** The chunk's re-uploads, in the order they were recorded. */
  subImportsOf(chunk: number): readonly BulkSubImport[];
  /** The chunk a row last went in, if any. */
  chunkOf(source: number, line: number): BulkChunkRecord | undefined;
  /** The files of the chunks recorded for a source (a stage), by any run of the ledger. */
  recordedFiles(source: number): ReadonlySet<string>;
  close(): void;
}

export function openBulkChunks(runDir: string, cwd: string = process.cwd()): BulkChunks {
  const place: DbPlace = { file: ledgerFile(runDir), cwd };
  // A chunk file in the run folder is recorded relative to it, so that a run folder moved away
  // (parked) and resumed there still finds the files its re-uploads are cut from.
  const base = resolve(cwd, runDir);
  const stored = (file: string) => {
    const inside = relative(base, resolve(cwd, file));
    return inside.startsWith('..') || isAbsolute(inside) ? resolve(cwd, file) : inside;
  };
  const located = (file: string) => (isAbsolute(file) ? file : join(base, file));
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
  const insertSub = db.prepare('INSERT INTO bulk_sub_imports (chunk, positions) VALUES (?, ?)');
  const setSubImport = db.prepare('UPDATE bulk_sub_imports SET import_id = ? WHERE sub = ?');
  const findSubs = db.prepare('SELECT sub, positions, import_id FROM bulk_sub_imports WHERE chunk = ? ORDER BY sub');
  const findChunk = db.prepare('SELECT chunk, source, file, lines, keys, import_id FROM bulk_chunks WHERE chunk = ?');
  const findFiles = db.prepare('SELECT file FROM bulk_chunks WHERE source = ?').pluck();
  const record = db.transaction(
    (source: number, file: string, lines: readonly number[], keys: readonly (string | undefined)[]) => {
      const chunk = Number(
        insertChunk.run(source, stored(file), JSON.stringify(lines), JSON.stringify(keys.map((k) => k ?? null)))
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
    recordSubImport: (chunk, positions) =>
      guard(place, () => Number(insertSub.run(chunk, JSON.stringify(positions)).lastInsertRowid)),
    recordSubImportId(sub, importId) {
      guard(place, () => setSubImport.run(importId, sub));
    },
    subImportsOf(chunk) {
      const rows = guard(place, () => findSubs.all(chunk)) as {
        sub: number;
        positions: string;
        import_id: string | null;
      }[];
      return rows.map((r) => ({ sub: r.sub, positions: JSON.parse(r.positions) as number[], importId: r.import_id }));
    },
    recordedFiles: (source) => new Set((guard(place, () => findFiles.all(source)) as string[]).map(located)),
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
        file: located(row.file),
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
