import { basename, extname, join, dirname } from 'node:path';
import type { ResolvedMapping } from '../config/mapping-schema.js';
import { createCsvFileWriter, type CsvFileWriter } from './_csv-file-writer.js';
import { neutraliseFormula } from './neutralise-formula.js';

/** What the writer needs of the source: its columns, and the delimiter it was read with (`auto` resolved). */
export interface RejectsSource {
  readonly header: readonly string[];
  readonly delimiter: string;
  /** The source began with Excel's `sep=` line: its rejects do too, so the same mapping reads them. */
  readonly sepLine?: boolean;
}

/**
 * Rows a user has to fix, with their original columns plus `error`, so that the fixed file can be
 * fed back with the same mapping. That is why a rejects file keeps the source's delimiter and
 * encoding, and why the original cells are NOT formula-neutralised (a leading `-` is a negative
 * number that must survive the round trip); only the `error` column, which we wrote, is.
 *
 * Rows come out in input order even when they are decided out of order (a live run's requests
 * finish in any order): each file holds back up to REORDER_WINDOW rows and writes the lowest line
 * first. A row decided after that many later rows would be written late, not lost.
 */
export interface RejectsWriter {
  /**
   * `line`: where the record starts in its file; rows are written in that order. `raw`: the text
   * of a record the parser could not split (a quote error).
   *
   * A malformed record (a quote error, or not as many fields as the header has columns) is written
   * as it was, its error after it: fed back unfixed, it is refused again. Made into a well-formed
   * row (its text in one cell, a short one padded, a long one's extra fields joined into its last
   * column), it would read as a valid row of the wrong values and be sent.
   */
  write(
    mapping: ResolvedMapping,
    source: RejectsSource,
    fields: readonly string[],
    error: string,
    line?: number,
    raw?: string,
  ): Promise<void>;
  /** Files written, for the summary. */
  readonly files: () => readonly string[];
  /** `keep: false`: the run failed part-way; the previous files stay. */
  close(keep?: boolean): Promise<void>;
}

/** Rows each rejects file holds back to put them in input order: far more than a run has in flight. */
const REORDER_WINDOW = 10_000;

/**
 * Where each mapping's rejects go. `path` itself for a single mapping; for a job (several sources
 * with different columns) `<path stem>.<source stem>.csv` beside it, numbered when two sources
 * share a name (`a/x.csv` and `b/x.csv`: `rejects.x.csv`, `rejects.x-2.csv`).
 */
export function rejectsFiles(
  path: string,
  perSource: boolean,
  mappings: readonly ResolvedMapping[],
): Map<string, string> {
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

/**
 * Where the error goes. A rejects file fed back already has its error column last: it is reused,
 * not doubled, so the file can go round as often as it takes to fix it. Otherwise a column is
 * added, named `error` unless the source has a column of that name (which the mapping may read):
 * then `engage_import_error`, so the header never holds one name twice.
 */
function errorColumnOf(header: readonly string[], mapping: ResolvedMapping): { errorAt: number; name: string } {
  const reads = (column: string) => mapping.key.includes(column) || mapping.fields.some((f) => f.column === column);
  const last = header.at(-1);
  const ours = (column: string) => column === ERROR_COLUMN || /^engage_import_error(_\d+)?$/.test(column);
  if (last !== undefined && ours(last) && !reads(last) && header.indexOf(last) === header.length - 1)
    return { errorAt: header.length - 1, name: last };
  let name = ERROR_COLUMN;
  for (let n = 1; header.includes(name); n++) name = n === 1 ? 'engage_import_error' : `engage_import_error_${n}`;
  return { errorAt: header.length, name };
}

interface Pending {
  readonly line: number;
  readonly seq: number;
  readonly cells: string[];
  /** A malformed record's text, written as it is before its cells (the error). */
  readonly verbatim?: string;
}

/** Writes each mapping's invalid, failed and skipped rows to its file of `rejectsFiles`, opened at its first row. */
export function createRejectsWriter(files: ReadonlyMap<string, string>): RejectsWriter {
  /** `errorAt`: the column the error goes in, after the source's own columns (its own `error` one excluded). */
  const writers = new Map<
    string,
    { out: CsvFileWriter; errorAt: number; delimiter: string; file: string; held: Pending[] }
  >();
  let seq = 0;
  return {
    async write(mapping, { header, delimiter, sepLine }, fields, error, line, raw) {
      let w = writers.get(mapping.mappingFile);
      if (!w) {
        const file = files.get(mapping.mappingFile);
        if (file === undefined) throw new Error(`no rejects file planned for ${mapping.mappingFile}`);
        const { errorAt, name } = errorColumnOf(header, mapping);
        const columns = errorAt < header.length ? header : [...header, name];
        const out = createCsvFileWriter(file, {
          header: columns,
          delimiter,
          encoding: mapping.source.encoding,
          sepLine: sepLine === true,
        });
        w = { out, errorAt, delimiter, file, held: [] };
        writers.set(mapping.mappingFile, w);
      }
      const malformed = raw !== undefined || fields.length !== header.length;
      // A quote error's text as the file had it, then the error; other malformed records keep
      // their own number of fields, the error after them.
      const fedBack = w.errorAt < header.length;
      const verbatim =
        raw === undefined ? undefined : `${fedBack ? rawWithoutOldError(raw, w.delimiter) : raw}${w.delimiter}`;
      const own = raw !== undefined ? [] : malformed ? withoutOldError(fields, fedBack) : fields.slice(0, w.errorAt);
      const cells = [...own, neutraliseFormula(error)];
      if (line === undefined) {
        await w.out.write(cells, verbatim);
        return;
      }
      insertSorted(w.held, { line, seq: seq++, cells, ...(verbatim !== undefined && { verbatim }) });
      if (w.held.length > REORDER_WINDOW) {
        const first = w.held.shift()!;
        await w.out.write(first.cells, first.verbatim);
      }
    },
    files: () => [...writers.values()].map((w) => w.file),
    async close(keep = true) {
      await Promise.all(
        [...writers.values()].map(async (w) => {
          if (keep) for (const p of w.held.splice(0)) await w.out.write(p.cells, p.verbatim);
          await w.out.close(keep);
        }),
      );
    },
  };
}

/**
 * A malformed record of a rejects file fed back ends with the error an earlier run wrote after it
 * (`data.csv line 3: …`): dropped, not kept as a field, or each round would add a field until the
 * record had as many as the header and read as a valid row.
 */
function withoutOldError(fields: readonly string[], fedBack: boolean): string[] {
  const last = fields.at(-1);
  return fedBack && last !== undefined && isOldError(last) ? fields.slice(0, -1) : [...fields];
}

/** The error an earlier run wrote after a malformed record: `<file> line N: …` (a file name may hold spaces). */
const isOldError = (cell: string) => /^.+? lines? \d+(?:[-–]\d+)?: /.test(cell);

/**
 * A quote error's text from a rejects file fed back, without the error an earlier run wrote at
 * its end (`…<delimiter>"data.csv line 3: …"`), so the record does not gain a field each round.
 */
function rawWithoutOldError(raw: string, delimiter: string): string {
  let start: number;
  let cell: string;
  if (raw.endsWith('"')) {
    // A quoted last cell: back to its opening quote, doubled quotes inside it skipped.
    let i = raw.length - 2;
    while (i >= 0 && !(raw[i] === '"' && raw[i - 1] !== '"')) i -= raw[i] === '"' ? 2 : 1;
    if (i < 1 || raw.slice(i - delimiter.length, i) !== delimiter) return raw;
    start = i - delimiter.length;
    cell = raw.slice(i + 1, -1).replaceAll('""', '"');
  } else {
    start = raw.lastIndexOf(delimiter);
    if (start < 0) return raw;
    cell = raw.slice(start + delimiter.length);
  }
  return isOldError(cell) ? raw.slice(0, start) : raw;
}

/** Keeps `held` sorted by line, rows of one line in the order they came. */
function insertSorted(held: Pending[], p: Pending): void {
  let at = held.length;
  while (at > 0 && held[at - 1]!.line > p.line) at--;
  held.splice(at, 0, p);
}

const ERROR_COLUMN = 'error';
