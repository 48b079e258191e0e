import type { LoadedJob } from '../config/load-job.js';
import type { ResolvedMapping } from '../config/mapping-schema.js';
import type { RequestOptions } from '../resources/index.js';
import { createPayloadsWriter, type PayloadsWriter } from '../report/payloads-writer.js';
import { createRejectsWriter, type RejectsWriter } from '../report/rejects-writer.js';
import { createReportWriter, type ReportWriter } from '../report/report-writer.js';
import { newFileSummary, summarise, type FileSummary, type RunSummary } from '../report/summary.js';
import { watchTimestampOrder } from '../sort/timestamp-order.js';
import type { Classification, RunClassifier, SourceClassifier } from '../sync/index.js';
import { displayPath } from './display-path.js';
import { openSources, type OpenedSource } from './open-sources.js';
import { planOutputs } from './output-paths.js';
import { createPlanner, planRows, type PlannedRow } from './plan-rows.js';
import { inDependencyOrder } from './stage-order.js';

/** Valid rows classified per sync-state lookup in an incremental preview. */
const CLASSIFY_BATCH = 512;

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
  /**
   * `validate --incremental`: classifies each valid row against the sync state (new, changed,
   * unchanged, already_sent, superseded); only rows to send count as requests. Default: none,
   * every valid row is `valid`.
   */
  readonly classifier?: RunClassifier | undefined;
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
    const out = createReportWriter(options.report);
    report = out;
    rejects = rejectsPaths ? createRejectsWriter(rejectsPaths) : undefined;
    payloads = options.payloads ? createPayloadsWriter(options.payloads) : undefined;
    // Incremental preview: every entity file is read once for its keys before any row is
    // classified, so a row is superseded by a later one with its key, in this file or a later one.
    const syncs = sources.map(({ mapping, source }, index) =>
      options.classifier?.forSource(index, mapping, source.header, displayPath(mapping.source.path, options.cwd)),
    );
    for (const [index, { mapping }] of sources.entries()) {
      const sync = syncs[index];
      if (sync?.needsFirstPass) await notePass(mapping, sync, options);
    }
    reading: for (const [index, { mapping, source }] of sources.entries()) {
      const file = displayPath(mapping.source.path, options.cwd);
      const summary = newFileSummary(file, mapping.resource);
      files.push(summary);
      const plan = createPlanner(mapping, source.header, options);
      const order = watchTimestampOrder(mapping, file, summary.warnings);
      const sync = syncs[index];
      const rejectsOut = rejects;
      const payloadsOut = payloads;

      /** One record's report line (and payload or reject); a promise only when a writer is behind. */
      const emit = (row: PlannedRow, c: Classification | undefined): Promise<void> | undefined => {
        if (row.status === 'valid') {
          const status = c?.status ?? 'valid';
          const send = c?.send ?? true;
          summary.counts[status]++;
          if (send) summary.requests++;
          const message = c?.message ?? row.notes?.join('; ');
          const wait = out.write({
            file,
            line: row.line,
            resource: mapping.resource,
            key: row.key,
            status,
            ...(message !== undefined ? { message } : {}),
          });
          if (!payloadsOut || !send) return wait;
          const call = row.call;
          return (async () => {
            if (wait) await wait;
            await payloadsOut.write({
              file,
              line: row.line,
              method: call.method,
              path: `/${call.path}`,
              body: call.body,
            });
          })();
        }
        summary.counts.invalid++;
        summary.errors.add('invalid', row.line, row.message);
        const wait = out.write({
          file,
          line: row.line,
          resource: mapping.resource,
          key: row.key,
          status: 'invalid',
          message: row.message,
        });
        if (!rejectsOut) return wait;
        return (async () => {
          if (wait) await wait;
          await rejectsOut.write(mapping, source, row.fields, row.message, row.line, row.raw);
        })();
      };

      // Incremental preview: rows wait here in batches, so the sync state is looked up once per batch.
      const batch: PlannedRow[] = [];
      const flush = async () => {
        const verdicts = sync!.classify(batch.filter((r) => r.status === 'valid'));
        let v = 0;
        for (const row of batch) {
          const wait = emit(row, row.status === 'valid' ? verdicts[v++] : undefined);
          if (wait) await wait;
        }
        batch.length = 0;
      };
      let read = 0;
      // The hot loop of a million-row dry run: one sync planning step and, most of the time, no
      // await at all per record (writers return a promise only when the file is behind).
      for await (const item of source.items) {
        if (signal?.aborted) {
          aborted = `interrupted (${String(signal.reason ?? 'signal')}): the report holds every row read before it; run the command again to check the rest`;
          if (batch.length > 0) await flush();
          break reading;
        }
        if (options.limit !== undefined && read >= options.limit) break;
        read++;
        const row = plan(item);
        order.add(row);
        if (sync === undefined) {
          const wait = emit(row, undefined);
          if (wait) await wait;
        } else if (batch.push(row) >= CLASSIFY_BATCH) await flush();
      }
      if (batch.length > 0) await flush();
      order.end();
    }
  } finally {
    for (const { source } of sources) source.close();
    await Promise.all([report?.close(), rejects?.close(), payloads?.close()]);
  }
  const notes = options.classifier?.notes() ?? [];
  const result = summarise(
    'dry-run',
    files,
    {
      report: displayPath(options.report, options.cwd),
      rejects: rejects?.files().map((f) => displayPath(f, options.cwd)) ?? [],
      payloads: options.payloads ? displayPath(options.payloads, options.cwd) : undefined,
    },
    { rate: options.rate, limit: options.limit, aborted },
  );
  return notes.length > 0 ? { ...result, notes } : result;
}

/**
 * Incremental preview, entity files: a first reading of the file that notes every valid row's
 * key, so that when two rows share one the earlier is reported `superseded` (the later wins).
 */
async function notePass(mapping: ResolvedMapping, sync: SourceClassifier, options: DryRunOptions): Promise<void> {
  const [opened] = await openSources([mapping]);
  if (opened === undefined) return;
  try {
    for await (const row of planRows(mapping, opened.source, options)) {
      if (row.status === 'valid') sync.note(row);
    }
  } finally {
    opened.source.close();
  }
}
