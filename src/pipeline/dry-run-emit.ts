/** A dry run's output for one record: its report line, and its payload or reject when those files are written. */
import type { ResolvedMapping } from '../config/mapping-schema.js';
import type { PayloadsWriter } from '../report/payloads-writer.js';
import type { RejectsWriter } from '../report/rejects-writer.js';
import type { ReportWriter } from '../report/report-writer.js';
import type { FileSummary } from '../report/summary.js';
import type { CsvSource } from '../source/csv-source.js';
import type { Classification } from '../sync/index.js';
import type { PlannedRow } from './plan-rows.js';

/** Where a dry run writes: the report always, rejects and payloads when asked for. */
export interface DryRunWriters {
  readonly report: ReportWriter;
  readonly rejects: RejectsWriter | undefined;
  readonly payloads: PayloadsWriter | undefined;
}

/** The file being read: what its report lines name, and its counters. */
export interface DryRunFile {
  readonly file: string;
  readonly mapping: ResolvedMapping;
  readonly source: CsvSource;
  readonly summary: FileSummary;
}

/**
 * One record's report line (and payload or reject); a promise only when a writer is behind.
 * `skipped`: the message of a valid row whose parent is invalid, which the live run skips.
 */
export type Emit = (row: PlannedRow, c: Classification | undefined, skipped?: string) => Promise<void> | undefined;

/** The dry run's output for each record of one file, counted in its summary. */
export function createEmitter(target: DryRunFile, writers: DryRunWriters): Emit {
  return (row, c, skipped) =>
    row.status === 'invalid'
      ? emitRejected(target, writers, row, 'invalid', row.message)
      : skipped !== undefined
        ? emitRejected(target, writers, row, 'skipped', skipped)
        : emitValid(target, writers, row, c);
}

/** A valid row: its status (its sync verdict in an incremental preview), and its request when it would be sent. */
function emitValid(
  { file, mapping, summary }: DryRunFile,
  { report, payloads }: DryRunWriters,
  row: Extract<PlannedRow, { status: 'valid' }>,
  c: Classification | undefined,
): Promise<void> | undefined {
  const status = c?.status ?? 'valid';
  const send = c?.send ?? true;
  summary.counts[status]++;
  if (send) summary.requests++;
  const message = c?.message ?? row.notes?.join('; ');
  const wait = report.write({
    file,
    line: row.line,
    resource: mapping.resource,
    key: row.key,
    status,
    ...(message !== undefined ? { message } : {}),
  });
  if (!payloads || !send) return wait;
  const call = row.call;
  return (async () => {
    if (wait) await wait;
    await payloads.write({
      file,
      line: row.line,
      method: call.method,
      path: `/${call.path}`,
      body: call.body,
    });
  })();
}

/**
 * An invalid row, or a valid one the live run would skip (its parent is invalid): its message in
 * the report, and the record as read in the rejects, as the live run writes them.
 */
function emitRejected(
  { file, mapping, source, summary }: DryRunFile,
  { report, rejects }: DryRunWriters,
  row: PlannedRow,
  status: 'invalid' | 'skipped',
  message: string,
): Promise<void> | undefined {
  summary.counts[status]++;
  summary.errors.add(status, row.line, message);
  const wait = report.write({ file, line: row.line, resource: mapping.resource, key: row.key, status, message });
  if (!rejects) return wait;
  const raw = row.status === 'invalid' ? row.raw : undefined;
  return (async () => {
    if (wait) await wait;
    await rejects.write(mapping, source, row.fields, message, row.line, raw);
  })();
}
