import { basename, extname, join, dirname } from 'node:path';
import type { ResolvedMapping } from '../config/mapping-schema.js';
import { createCsvFileWriter, type CsvFileWriter } from './_csv-file-writer.js';
import { neutraliseFormula } from './neutralise-formula.js';

/**
 * Rows a user has to fix, with their original columns plus `error`, so that the fixed file can be
 * fed back with the same mapping. That is why a rejects file keeps the source's delimiter and
 * encoding, and why the original cells are NOT formula-neutralised (a leading `-` is a negative
 * number that must survive the round trip); only the `error` column, which we wrote, is.
 */
/** What the writer needs of the source: its columns, and the delimiter it was read with (`auto` resolved). */
export interface RejectsSource {
  readonly header: readonly string[];
  readonly delimiter: string;
}

export interface RejectsWriter {
  write(mapping: ResolvedMapping, source: RejectsSource, fields: readonly string[], error: string): Promise<void>;
  /** Files written, for the summary. */
  readonly files: () => readonly string[];
  close(): Promise<void>;
}

/**
 * `path` is the file for a single mapping; for a job (several sources with different columns)
 * each source gets `<path stem>.<source stem>.csv` beside it.
 */
export function createRejectsWriter(path: string, perSource: boolean): RejectsWriter {
  const writers = new Map<string, { out: CsvFileWriter; width: number; file: string }>();
  const fileFor = (m: ResolvedMapping) => {
    if (!perSource) return path;
    const stem = basename(path, extname(path));
    return join(dirname(path), `${stem}.${basename(m.source.path, extname(m.source.path))}${extname(path) || '.csv'}`);
  };
  return {
    async write(mapping, { header, delimiter }, fields, error) {
      let w = writers.get(mapping.mappingFile);
      if (!w) {
        const file = fileFor(mapping);
        const out = createCsvFileWriter(file, { header: [...header, 'error'], delimiter, encoding: mapping.source.encoding });
        w = { out, width: header.length, file };
        writers.set(mapping.mappingFile, w);
      }
      // A malformed record may have more or fewer fields than the header: pad short ones so that
      // `error` stays in its column; long ones keep every field so nothing the user typed is lost.
      const cells = fields.length < w.width ? [...fields, ...Array<string>(w.width - fields.length).fill('')] : [...fields];
      await w.out.write([...cells, neutraliseFormula(error)]);
    },
    files: () => [...writers.values()].map((w) => w.file),
    async close() {
      await Promise.all([...writers.values()].map((w) => w.out.close()));
    },
  };
}
