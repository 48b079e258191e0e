import type { LoadedJob } from '../config/load-job.js';
import type { RequestOptions } from '../resources/index.js';
import { createPayloadsWriter, type PayloadsWriter } from '../report/payloads-writer.js';
import { createRejectsWriter, type RejectsWriter } from '../report/rejects-writer.js';
import { createReportWriter, type ReportWriter } from '../report/report-writer.js';
import { newFileSummary, summarise, type FileSummary, type RunSummary } from '../report/summary.js';
import { displayPath } from './display-path.js';
import { openSources, type OpenedSource } from './open-sources.js';
import { planOutputs } from './output-paths.js';
import { createPlanner } from './plan-rows.js';
import { inDependencyOrder } from './stage-order.js';

export interface DryRunOptions extends RequestOptions {
  readonly cwd: string;
  /** Report CSV path. */
  readonly report: string;
  /** Rejects CSV path (invalid rows with their original columns and `error`). Default: none. */
  readonly rejects?: string | undefined;
  /** NDJSON of the exact requests valid rows would send. Default: none. */
  readonly payloads?: string | undefined;
  /** Records read per file. Default: all. */
  readonly limit?: number | undefined;
  /** Requests per second the live import would run at, for the estimate. */
  readonly rate: number;
  /** Aborted by the first Ctrl-C or SIGTERM: reading stops at the next record, the report keeps what was read. */
  readonly signal?: AbortSignal | undefined;
}

/**
 * Validate every row of a job without sending anything; one report line per record read. A
 * signal stops the reading at once; the report, rejects and payloads of the rows read are kept.
 */
export async function runDryRun(job: LoadedJob, options: DryRunOptions): Promise<RunSummary> {
  const ordered = inDependencyOrder(job.mappings);
  const rejectsPaths = planOutputs(job, ordered, options);
  const { signal } = options;
  let sources: OpenedSource[] = [];
  let report: ReportWriter | undefined;
  let rejects: RejectsWriter | undefined;
  let payloads: PayloadsWriter | undefined;
  let aborted: string | undefined;
  const files: FileSummary[] = [];
  try {
    // Opened inside the try: a writer that cannot be opened must not leave the CSVs open.
    sources = await openSources(ordered);
    report = createReportWriter(options.report);
    rejects = rejectsPaths ? createRejectsWriter(rejectsPaths) : undefined;
    payloads = options.payloads ? createPayloadsWriter(options.payloads) : undefined;
    reading: for (const { mapping, source } of sources) {
      const file = displayPath(mapping.source.path, options.cwd);
      const summary = newFileSummary(file, mapping.resource);
      files.push(summary);
      const plan = createPlanner(mapping, source.header, options);
      let read = 0;
      // The hot loop of a million-row dry run: one sync planning step and, most of the time, no
      // await at all per record (writers return a promise only when the file is behind).
      for await (const item of source.items) {
        if (signal?.aborted) {
          aborted = `interrupted (${String(signal.reason ?? 'signal')}): the report holds every row read before it; run the command again to check the rest`;
          break reading;
        }
        if (options.limit !== undefined && read >= options.limit) break;
        read++;
        const row = plan(item);
        summary.counts[row.status]++;
        if (row.status === 'valid') {
          summary.requests++;
          const wait = report.write({ file, line: row.line, resource: mapping.resource, key: row.key, status: 'valid', ...(row.notes && { message: row.notes.join('; ') }) });
          if (wait) await wait;
          if (payloads) await payloads.write({ file, line: row.line, method: row.call.method, path: `/${row.call.path}`, body: row.call.body });
        } else {
          const wait = report.write({ file, line: row.line, resource: mapping.resource, key: row.key, status: 'invalid', message: row.message });
          if (wait) await wait;
          if (rejects) await rejects.write(mapping, source, row.fields, row.message, row.line, row.raw);
        }
      }
    }
  } finally {
    for (const { source } of sources) source.close();
    await Promise.all([report?.close(), rejects?.close(), payloads?.close()]);
  }
  return summarise(
    'dry-run',
    files,
    {
      report: displayPath(options.report, options.cwd),
      rejects: rejects?.files().map((f) => displayPath(f, options.cwd)) ?? [],
      payloads: options.payloads ? displayPath(options.payloads, options.cwd) : undefined,
    },
    { rate: options.rate, limit: options.limit, aborted },
  );
}
