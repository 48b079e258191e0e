import type { ResourceName } from '../config/mapping-schema.js';
import { ErrorGroups, formatErrorGroup, TOP_GROUPS } from './error-groups.js';
import { ROW_STATUSES, type RowStatus } from './report-line.js';

/** Counts of one input file (one mapping). Live figures are absent in a dry run. */
export interface FileSummary {
  readonly file: string;
  readonly resource: ResourceName;
  readonly counts: Record<RowStatus, number>;
  /** Requests this file's rows would send (dry run) or sent (live, including retries). */
  requests: number;
  retries: number;
  throttled: number;
  elapsedMs: number;
  /** The file's errors grouped by kind; `--json` writes its top 10 (count, message, first lines). */
  readonly errors: ErrorGroups;
  /** Problems of the file as a whole (product events out of time order). */
  readonly warnings: string[];
  /**
   * Set when the stage went (live) or would go (dry run) through the CSV import endpoint: rows
   * uploaded and imports the service ran. A dry run adds how long the imports would take.
   */
  bulk?:
    | {
        readonly rows: number;
        readonly imports: number;
        /** A dry run: rows the live import would send per row, their key repeating in a chunk. */
        readonly perRow?: number | undefined;
        /** A dry run: product rows the live import would not send, their product created by an earlier row. */
        readonly notSent?: number | undefined;
        readonly estimate?: { readonly seconds: number; readonly rowsPerS: number } | undefined;
      }
    | undefined;
}

export interface RunSummary {
  readonly mode: 'dry-run' | 'live';
  readonly files: readonly FileSummary[];
  readonly totals: Record<RowStatus, number>;
  /** Dry run: requests the live import would send; live: requests sent. */
  readonly requests: number;
  readonly rate: number;
  readonly report: string | undefined;
  readonly rejects: readonly string[];
  readonly payloads: string | undefined;
  /** Set when the run stopped before its end (401, signal). */
  readonly aborted: string | undefined;
  /** Rows read per file when `--limit` cut the input. */
  readonly limit: number | undefined;
  /** Incremental runs: sentences worth reading before the run (most rows changed because a mapping did). */
  readonly notes?: readonly string[];
}

/** Where the run's files went, as the user should read them (paths relative to the cwd). */
export interface SummaryFiles {
  readonly report: string | undefined;
  readonly rejects: readonly string[];
  readonly payloads: string | undefined;
}

/** The summary of a run from its per-file counts: totals and request counts derived once, here. */
export function summarise(
  mode: RunSummary['mode'],
  files: readonly FileSummary[],
  written: SummaryFiles,
  run: { readonly rate: number; readonly limit: number | undefined; readonly aborted: string | undefined },
): RunSummary {
  return {
    mode,
    files,
    totals: totalsOf(files),
    requests: files.reduce((n, f) => n + f.requests, 0),
    ...written,
    ...run,
  };
}

export function emptyCounts(): Record<RowStatus, number> {
  return Object.fromEntries(ROW_STATUSES.map((s) => [s, 0])) as Record<RowStatus, number>;
}

export function newFileSummary(file: string, resource: ResourceName): FileSummary {
  return {
    file,
    resource,
    counts: emptyCounts(),
    requests: 0,
    retries: 0,
    throttled: 0,
    elapsedMs: 0,
    errors: new ErrorGroups(),
    warnings: [],
  };
}

export function totalsOf(files: readonly FileSummary[]): Record<RowStatus, number> {
  const totals = emptyCounts();
  for (const f of files) for (const s of ROW_STATUSES) totals[s] += f.counts[s];
  return totals;
}

const number = new Intl.NumberFormat('en-US');
/** `1 import`, `1,234 requests`. */
const plural = (n: number, word: string) => `${number.format(n)} ${word}${n === 1 ? '' : 's'}`;

/** `20 min 35 s`, `1 h 2 min 3 s`, `4 s`: rounded up, so an estimate is never optimistic. */
export function formatDuration(seconds: number): string {
  let s = Math.ceil(seconds);
  const h = Math.floor(s / 3600);
  s -= h * 3600;
  const m = Math.floor(s / 60);
  s -= m * 60;
  const parts = [h ? `${h} h` : '', m ? `${m} min` : '', s || (!h && !m) ? `${s} s` : ''].filter(Boolean);
  return parts.join(' ');
}

/** `12,345 requests ≈ 20 min 35 s at 10 req/s` */
export function formatEstimate(requests: number, rate: number): string {
  return `${plural(requests, 'request')} ≈ ${formatDuration(requests / rate)} at ${number.format(rate)} req/s`;
}

/**
 * A dry run's estimate of the live import: its per-row requests at the rate, and the stages it
 * would send by bulk import at the service's documented import rate.
 * `4,000 requests ≈ 6 min 40 s at 10 req/s; bulk: 4,000 rows in 5 imports, 16 requests ≈ 10 s at 450 rows/s`
 */
function liveEstimate(summary: RunSummary): string {
  const bulk = summary.files.filter((f) => f.bulk?.estimate !== undefined);
  const perRow = summary.requests - bulk.reduce((n, f) => n + f.requests, 0);
  const estimate = formatEstimate(perRow, summary.rate);
  if (bulk.length === 0) return estimate;
  const rows = bulk.reduce((n, f) => n + f.bulk!.rows, 0);
  const imports = bulk.reduce((n, f) => n + f.bulk!.imports, 0);
  const requests = bulk.reduce((n, f) => n + f.requests, 0);
  const seconds = bulk.reduce((n, f) => n + f.bulk!.estimate!.seconds, 0);
  const byBulk = `bulk: ${plural(rows, 'row')} in ${plural(imports, 'import')}, ${plural(requests, 'request')} ≈ ${formatDuration(seconds)} at ${number.format(bulk[0]!.bulk!.estimate!.rowsPerS)} rows/s`;
  return perRow > 0 ? `${estimate}; ${byBulk}` : byBulk;
}

/** The human summary written to stderr: one line per file with its non-zero counts. */
export function formatSummary(summary: RunSummary): string {
  const lines: string[] = [];
  const width = Math.max(...summary.files.map((f) => f.file.length), 4);
  for (const f of summary.files) {
    const counts = ROW_STATUSES.filter((s) => f.counts[s] > 0).map((s) => `${s} ${number.format(f.counts[s])}`);
    const live =
      summary.mode === 'live'
        ? `  (${plural(f.requests, 'request')}, ${number.format(f.retries)} ${f.retries === 1 ? 'retry' : 'retries'}, ${number.format(f.throttled)} × 429, ${formatDuration(f.elapsedMs / 1000)}${f.elapsedMs > 0 ? `, ${(f.requests / (f.elapsedMs / 1000)).toFixed(1)} req/s` : ''})`
        : f.bulk?.estimate !== undefined
          ? `  (bulk: ${plural(f.bulk.imports, 'import')}${f.bulk.perRow ? ` and ${plural(f.bulk.perRow, 'row')} per row (a key repeating in a chunk, or a value no CSV cell carries)` : ''}${f.bulk.notSent ? `; ${plural(f.bulk.notSent, 'row')} not sent, an earlier row creates its product` : ''}, ${plural(f.requests, 'request')} ≈ ${formatDuration(f.bulk.estimate.seconds)} at ${number.format(f.bulk.estimate.rowsPerS)} rows/s)`
          : '';
    if (summary.mode === 'live' && f.bulk !== undefined) {
      // `contacts.csv  user  bulk: 100,000 rows in 10 imports, ok 99,880, failed 120, 23 requests, 3 min 42 s`;
      // when only some rows went up (an incremental run, a resume): `bulk: 500 of 50,000 rows in 1 import, …`.
      const rows = ROW_STATUSES.reduce((n, s) => n + f.counts[s], 0);
      const uploaded =
        f.bulk.rows === rows
          ? `${number.format(rows)} rows`
          : `${number.format(f.bulk.rows)} of ${number.format(rows)} rows`;
      const imports = plural(f.bulk.imports, 'import');
      lines.push(
        `  ${f.file.padEnd(width)}  ${f.resource.padEnd(16)}  bulk: ${uploaded} in ${imports}, ${[...counts, plural(f.requests, 'request'), formatDuration(f.elapsedMs / 1000)].join(', ')}`,
      );
    } else lines.push(`  ${f.file.padEnd(width)}  ${f.resource.padEnd(16)}  ${counts.join(', ') || 'no rows'}${live}`);
    for (const warning of f.warnings) lines.push(`    Warning: ${warning}`);
    // The most frequent mistakes of the file, so a user sees what is wrong without sorting the report.
    for (const group of f.errors.top()) lines.push(`      ${formatErrorGroup(group)}`);
    if (f.errors.kinds > TOP_GROUPS)
      lines.push(`      … and ${number.format(f.errors.kinds - TOP_GROUPS)} more kinds of error (see the report)`);
  }
  const t = summary.totals;
  const rows = ROW_STATUSES.reduce((n, s) => n + t[s], 0);
  const head = summary.mode === 'dry-run' ? 'Dry run (nothing was sent)' : 'Import';
  const totals = ROW_STATUSES.filter((s) => t[s] > 0)
    .map((s) => `${s} ${number.format(t[s])}`)
    .join(', ');
  lines.unshift(`${head}: ${plural(rows, 'row')} in ${plural(summary.files.length, 'file')}: ${totals || 'no rows'}`);
  if (summary.limit !== undefined) lines.push(`  (--limit: at most ${plural(summary.limit, 'row')} read per file)`);
  if (summary.mode === 'dry-run') lines.push(`Live import: ${liveEstimate(summary)}`);
  for (const note of summary.notes ?? []) lines.push(`Note: ${note}`);
  if (summary.aborted) lines.push(`Stopped early: ${summary.aborted}`);
  if (summary.report) lines.push(`Report: ${summary.report}`);
  for (const r of summary.rejects) lines.push(`Rejects: ${r}`);
  if (summary.payloads) lines.push(`Payloads: ${summary.payloads}`);
  return `${lines.join('\n')}\n`;
}
