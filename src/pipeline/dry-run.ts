import type { LoadedJob } from '../config/load-job.js';
import type { ResolvedMapping } from '../config/mapping-schema.js';
import type { RequestOptions } from '../resources/index.js';
import { createPayloadsWriter, type PayloadsWriter } from '../report/payloads-writer.js';
import { createRejectsWriter, type RejectsWriter } from '../report/rejects-writer.js';
import { createReportWriter, type ReportWriter } from '../report/report-writer.js';
import { newFileSummary, summarise, type FileSummary, type RunSummary } from '../report/summary.js';
import { watchTimestampOrder } from '../sort/timestamp-order.js';
import type { Classification, RunClassifier, SourceClassifier } from '../sync/index.js';
import { checkBulkHeaders, hasImportEndpoint } from './bulk-choice.js';
import { chunkRepeats, estimateBulk } from './bulk-estimate.js';
import type { BulkOptions } from './bulk-options.js';
import { displayPath } from '../text/display-path.js';
import { createEmitter, type DryRunWriters, type Emit } from './dry-run-emit.js';
import { cascadeOf, type Cascade } from './cascade.js';
import { FailedParents } from './failed-parents.js';
import { resourceDef } from '../resources/index.js';
import { openSources, type OpenedSource } from './open-sources.js';
import { planOutputs, type ProtectedPath } from './output-paths.js';
import { createPlanner, planRows, type PlannedRow } from './plan-rows.js';
import { noteRow } from './validation-pass.js';
import { inDependencyOrder } from './stage-order.js';

type ChunkRepeats = ReturnType<typeof chunkRepeats>;

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
  /**
   * The live import's bulk options: a stage it would send by bulk import is estimated as its
   * imports (uploads, polls and the service's time), not one request per row. Default: none.
   */
  readonly bulk?: BulkOptions | undefined;
  /** Aborted by the first Ctrl-C or SIGTERM: reading stops at the next record, the report keeps what was read. */
  readonly signal?: AbortSignal | undefined;
  /** Files and folders besides the job's inputs that no output may name (the key file, the state directory). */
  readonly protect?: readonly ProtectedPath[] | undefined;
}

/**
 * Validate every row of a job without sending anything; one report line per record read. A
 * signal stops the reading at once; the report, rejects and payloads of the rows read are kept.
 */
export async function runDryRun(job: LoadedJob, options: DryRunOptions): Promise<RunSummary> {
  // Deals the live import would send by bulk without their header names: refused now, as then.
  checkBulkHeaders(job.mappings, options.bulk);
  const ordered = inDependencyOrder(job.mappings);
  const rejectsPaths = planOutputs(job, ordered, options);
  let sources: OpenedSource[] = [];
  let report: ReportWriter | undefined;
  let rejects: RejectsWriter | undefined;
  let payloads: PayloadsWriter | undefined;
  let aborted: string | undefined;
  const files: FileSummary[] = [];
  // A run refused part-way (an undecodable byte at line 5,002) keeps the previous outputs whole:
  // half a report would read as the whole file's. A run stopped by a signal keeps what it read.
  let completed = false;
  try {
    // Opened inside the try: a writer that cannot be opened must not leave the CSVs open.
    sources = await openSources(ordered);
    report = createReportWriter(options.report);
    rejects = rejectsPaths ? createRejectsWriter(rejectsPaths) : undefined;
    payloads = options.payloads ? createPayloadsWriter(options.payloads) : undefined;
    const syncs = await classifiersOf(sources, options);
    // Parents invalid here: their children in later files are skipped by the live run, and so here.
    const parents = new FailedParents();
    for (const [index, opened] of sources.entries()) {
      const { resource } = opened.mapping;
      // Rows the live import would send per row, should this stage go by bulk (`chunkRepeats`).
      const repeats =
        options.bulk !== undefined && hasImportEndpoint(resource)
          ? chunkRepeats(resource, options.bulk.chunkRows)
          : undefined;
      const context = { parents, repeats };
      aborted = await readFile(opened, syncs[index], { report, rejects, payloads }, files, context, options);
      estimateBulk(files.at(-1)!, opened.mapping, options.bulk, {
        rows: repeats?.repeats ?? 0,
        notSent: repeats?.notSent ?? 0,
        rate: options.rate,
      });
      if (aborted !== undefined) break;
    }
    completed = true;
  } finally {
    for (const { source } of sources) source.close();
    await Promise.all([report?.close(completed), rejects?.close(completed), payloads?.close(completed)]);
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
 * Incremental preview: each file's classifier (none without `--incremental`). Every entity file is
 * read once for its keys before any row is classified, so a row is superseded by a later one with
 * its key in the same file.
 */
async function classifiersOf(
  sources: readonly OpenedSource[],
  options: DryRunOptions,
): Promise<(SourceClassifier | undefined)[]> {
  const syncs = sources.map(({ mapping, source }, index) =>
    options.classifier?.forSource(index, mapping, source.header, displayPath(mapping.source.path, options.cwd)),
  );
  // Every parent resource (contacts, products) is an entity, read here: their invalid rows are
  // known before a later file's row is noted, as in the live run's validation pass.
  const invalidParents = new FailedParents();
  for (const [index, { mapping }] of sources.entries()) {
    const sync = syncs[index];
    if (sync?.needsFirstPass) await notePass(mapping, sync, invalidParents, options);
  }
  return syncs;
}

/**
 * One file of the dry run: every record read (at most `limit`) is planned, checked for time order
 * and emitted. Answers the message to report when a signal stopped the reading, else undefined.
 */
async function readFile(
  { mapping, source }: OpenedSource,
  sync: SourceClassifier | undefined,
  writers: DryRunWriters,
  files: FileSummary[],
  { parents, repeats }: { readonly parents: FailedParents; readonly repeats: ChunkRepeats | undefined },
  options: DryRunOptions,
): Promise<string | undefined> {
  const { signal } = options;
  const file = displayPath(mapping.source.path, options.cwd);
  const summary = newFileSummary(file, mapping.resource);
  files.push(summary);
  const plan = createPlanner(mapping, source.header, options);
  const order = watchTimestampOrder(mapping, file, summary.warnings);
  const def = resourceDef(mapping.resource);
  const emit = cascading(createEmitter({ file, mapping, source, summary }, writers), cascadeOf(def, file, parents), {
    parents,
    repeats,
  });

  // Incremental preview: rows wait here in batches, so the sync state is looked up once per batch.
  const batch: PlannedRow[] = [];
  const flush = async () => {
    const valid = batch.filter((r) => r.status === 'valid');
    const verdicts = sync!.classify(
      valid,
      valid.map((r) => parents.size > 0 && parents.blockedBy(def.parents(r.payload)) !== undefined),
    );
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
      if (batch.length > 0) await flush();
      return `interrupted (${String(signal.reason ?? 'signal')}): the report holds every row read before it; run the command again to check the rest`;
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
  return undefined;
}

/**
 * What the live run's stages tell each other, foreseen: a row whose parent (in an earlier file)
 * is invalid is skipped, and so is its own child; a valid row's parent is taken to be created
 * (only the API can say otherwise). A row the preview does not send (unchanged, already sent) is
 * in the account already; a superseded one leaves it to the row that supersedes it. In input
 * order, as the live run applies them.
 */
function cascading(
  emit: Emit,
  cascade: Cascade,
  { parents, repeats }: { readonly parents: FailedParents; readonly repeats: ChunkRepeats | undefined },
): (row: PlannedRow, c: Classification | undefined) => ReturnType<Emit> {
  // While no parent failed, a row that succeeds has nothing to clear: its keys are not even made.
  const succeeded = (row: PlannedRow) => {
    if (parents.size > 0) cascade.apply(cascade.succeeded(row, undefined));
  };
  return (row, c) => {
    if (row.status === 'invalid') {
      if (row.payload !== undefined) cascade.apply(cascade.failed(row, 'invalid'));
      return emit(row, undefined);
    }
    if (c !== undefined && !c.send) {
      if (c.status === 'unchanged' || c.status === 'already_sent') succeeded(row);
      return emit(row, c);
    }
    const blocked = cascade.blockedBy(row.payload);
    if (blocked === undefined) {
      succeeded(row);
      repeats?.add(row.payload);
    } else cascade.apply(cascade.failed(row, 'skipped'));
    return emit(row, c, blocked);
  };
}

/**
 * Incremental preview, entity files: a first reading of the file that notes every valid row's
 * key, so that when two rows share one the earlier is reported `superseded` (the later wins).
 */
async function notePass(
  mapping: ResolvedMapping,
  sync: SourceClassifier,
  invalidParents: FailedParents,
  options: DryRunOptions,
): Promise<void> {
  const [opened] = await openSources([mapping]);
  if (opened === undefined) return;
  const def = resourceDef(mapping.resource);
  const failure = { file: opened.source.path, line: 0, how: 'invalid' };
  try {
    for await (const row of planRows(mapping, opened.source, options)) noteRow(row, def, invalidParents, failure, sync);
  } finally {
    opened.source.close();
  }
}
