import { basename, extname, join, dirname } from 'node:path';
import type { ResolvedMapping } from '../config/mapping-schema.js';
import { createCsvFileWriter, type CsvFileWriter } from './_csv-file-writer.js';
import { neutraliseFormula } from './neutralise-formula.js';

/** What the writer needs of the source: its columns, and the delimiter it was read with (`auto` resolved). */
export interface RejectsSource {
  readonly header: readonly string[];
  readonly delimiter: string;
}

/**
 * Rows a user has to fix, with their original columns plus `error`, so that the fixed file can be
 * fed back with the same mapping. That is why a rejects file keeps the source's delimiter and
 * encoding, and why the original cells are NOT formula-neutralised (a leading `-` is a negative
 * number that must survive the round trip); only the `error` column, which we wrote, is.
 */
export interface RejectsWriter {
  write(mapping: ResolvedMapping, source: RejectsSource, fields: readonly string[], error: string): Promise<void>;
  /** Files written, for the summary. */
  readonly files: () => readonly string[];
  close(): Promise<void>;
}

/**
 * Where each mapping's rejects go. `path` itself for a single mapping; for a job (several sources
 * with different columns) `<path stem>.<source stem>.csv` beside it, numbered when two sources
 * share a name (`a/x.csv` and `b/x.csv`: `rejects.x.csv`, `rejects.x-2.csv`).
 */
export function rejectsFiles(path: string, perSource: boolean, mappings: readonly ResolvedMapping[]): Map<string, string> {
  const files = new Map<string, string>();
  const used = new Set<string>();
  const stem = basename(path, extname(path));
  const ext = extname(path) || '.csv';
  for (const m of mappings) {
    if (!perSource) {
      files.set(m.mappingFile, path);
      continue;
    }
    const source = basename(m.source.path, extname(m.source.path));
    let file = join(dirname(path), `${stem}.${source}${ext}`);
    for (let n = 2; used.has(file); n++) file = join(dirname(path), `${stem}.${source}-${n}${ext}`);
    used.add(file);
    files.set(m.mappingFile, file);
  }
  return files;
}

/** Writes each mapping's invalid and failed rows to its file of `rejectsFiles`, opened at its first row. */
export function createRejectsWriter(files: ReadonlyMap<string, string>): RejectsWriter {
  /** `errorAt`: the column the error goes in, after the source's own columns (its own `error` one excluded). */
  const writers = new Map<string, { out: CsvFileWriter; errorAt: number; file: string }>();
  return {
    async write(mapping, { header, delimiter }, fields, error) {
      let w = writers.get(mapping.mappingFile);
      if (!w) {
        const file = files.get(mapping.mappingFile);
        if (file === undefined) throw new Error(`no rejects file planned for ${mapping.mappingFile}`);
        // A rejects file fed back already has its `error` column: it is reused, not doubled, so
        // the file can go round as often as it takes to fix it.
        const readsIt = mapping.key.includes(ERROR_COLUMN) || mapping.fields.some((f) => f.column === ERROR_COLUMN);
        const errorAt = header.at(-1) === ERROR_COLUMN && !readsIt ? header.length - 1 : header.length;
        const columns = errorAt < header.length ? header : [...header, ERROR_COLUMN];
        const out = createCsvFileWriter(file, { header: columns, delimiter, encoding: mapping.source.encoding });
        w = { out, errorAt, file };
        writers.set(mapping.mappingFile, w);
      }
      // A malformed record may have more or fewer fields than the header: pad short ones so that
      // `error` stays in its column; long ones keep every field so nothing the user typed is lost.
      const kept = w.errorAt < header.length && fields.length === header.length ? fields.slice(0, w.errorAt) : fields;
      const cells = kept.length < w.errorAt ? [...kept, ...Array<string>(w.errorAt - kept.length).fill('')] : [...kept];
      await w.out.write([...cells, neutraliseFormula(error)]);
    },
    files: () => [...writers.values()].map((w) => w.file),
    async close() {
      await Promise.all([...writers.values()].map((w) => w.out.close()));
    },
  };
}

const ERROR_COLUMN = 'error';
