import { resumeCommand } from './resume-command.js';
import type { LoadedJob } from '../config/load-job.js';
import type { ResolvedMapping } from '../config/mapping-schema.js';
import type { Ledger } from '../ledger/index.js';
import { createRejectsWriter, type RejectsWriter } from '../report/rejects-writer.js';
import { createReportWriter, type ReportWriter } from '../report/report-writer.js';
import { newFileSummary, summarise, totalsOf, type FileSummary, type RunSummary } from '../report/summary.js';
import { resourceDef } from '../resources/index.js';
import type { RunClassifier, SourceClassifier } from '../sync/index.js';
import type { Transport, TransportStats } from '../transport/index.js';
import type { ReportLine } from '../report/report-line.js';
import { reorderByLine } from '../sort/by-line.js';
import { cascadeOf } from './cascade.js';
import { displayPath } from '../text/display-path.js';
import { FailedParents } from './failed-parents.js';
import { inputStamp } from './input-stamp.js';
import type { LiveImportOptions } from './live-options.js';
import { openSources } from './open-sources.js';
import { planOutputs } from './output-paths.js';
import type { Progress } from './progress.js';
import { RunState } from './run-state.js';
import { runStage } from './run-stage.js';
import { Semaphore } from './semaphore.js';
import { FirstRequestGate, type SendDeps } from './send-row.js';
import { checkBulkHeaders } from './bulk-choice.js';
import { chooseStrategy, type ChosenStrategy } from './choose-strategy.js';
import type { StageInfo } from './stage-strategy.js';
import { inDependencyOrder } from './stage-order.js';
import { validationPass, type FileCounts } from './validation-pass.js';

export interface LiveImportDeps {
  readonly transport: Transport;
  readonly ledger: Ledger;
  readonly progress: Progress;
  /** Aborted on SIGINT/SIGTERM: stop taking rows, let in-flight requests finish. */
  readonly signal: AbortSignal;
  /**
   * The sync state's classifier: which valid rows an incremental run sends, and each row's sync
   * key (every run records what it sent). Absent: rows are sent without keys (tests).
   */
  readonly sync?: RunClassifier | undefined;
  /**
   * Called before each stage classifies its first row: brings the sync state up to what the
   * earlier stages of this run had accepted. Two files of one resource are two stages, and the
   * later one must compare its rows with the requests the earlier one just sent, or it would take
   * a key the earlier file changed for unchanged and leave the account with the earlier file's values.
   */
  readonly beforeStage?: (() => void) | undefined;
}

export interface LiveRunResult extends RunSummary {
  /** Set when a signal stopped the run (its name). */
  readonly interrupted: string | undefined;
  /** True when a fatal answer (401), the API failing the run's breaker, or a broken ledger stopped the run: exit code 3. */
  readonly fatal: boolean;
}

/** What every stage of one run shares. */
interface Run {
  readonly job: LoadedJob;
  readonly options: LiveImportOptions;
  readonly deps: LiveImportDeps;
  readonly state: RunState;
  readonly report: ReportWriter;
  readonly rejects: RejectsWriter | undefined;
  readonly parents: FailedParents;
  readonly inFlight: Semaphore;
  readonly gate: FirstRequestGate;
  readonly files: FileSummary[];
  readonly syncs: (SourceClassifier | undefined)[];
  /** Each input's `inputStamp` before the validation pass read it. */
  readonly stamps: ReadonlyMap<string, string | undefined>;
  /** The ledger held rows when the run began: a resume (see StageRun.resumed). */
  readonly resumed: boolean;
}

/**
 * The live import: validate the whole job, then send every valid row in dependency order, one
 * stage after the other, at most `concurrency` in flight, writing one report line per input
 * record in input order. The run is: validation → stages (`runStage`, each row through its
 * strategy) → the ledger marked finished or left open for `resume` → the summary.
 */
export async function runLiveImport(
  job: LoadedJob,
  options: LiveImportOptions,
  deps: LiveImportDeps,
): Promise<LiveRunResult> {
  const { ledger, progress, signal } = deps;
  const mappings = inDependencyOrder(job.mappings);
  const rejectsPaths = planOutputs(job, mappings, options);
  const syncs: (SourceClassifier | undefined)[] = [];
  checkBulkHeaders(mappings, options.bulk);
  const stamps = new Map(mappings.map((m) => [m.source.path, inputStamp(m.source.path)]));
  const totals = await validationPass(
    mappings,
    options,
    signal,
    (index, mapping, header) =>
      (syncs[index] = deps.sync?.forSource(index, mapping, header, displayPath(mapping.source.path, options.cwd))),
  );
  const state = new RunState(
    () =>
      `resume with: ${options.resumeCommand ?? resumeCommand(ledger.runDir, { report: options.report, rejects: options.rejects }, options.cwd)}`,
  );
  const invalidTotal = totals.reduce((n, t) => n + t.invalid, 0);
  if (options.failOnInvalid && invalidTotal > 0) state.stop({ kind: 'invalid', count: invalidTotal });
  const onSignal = () => state.stop({ kind: 'signal', name: String(signal.reason) });
  if (signal.aborted) onSignal();
  signal.addEventListener('abort', onSignal, { once: true });

  const report = createReportWriter(options.report);
  const rejects = rejectsPaths ? createRejectsWriter(rejectsPaths) : undefined;
  const run: Run = {
    job,
    options,
    deps,
    state,
    report,
    rejects,
    parents: new FailedParents(),
    inFlight: new Semaphore(options.concurrency),
    gate: new FirstRequestGate(),
    files: [],
    syncs,
    stamps,
    resumed: Object.values(ledger.counts()).some((n) => n > 0),
  };
  try {
    for (const [index, mapping] of mappings.entries())
      await stage(run, index, mapping, totals[index] ?? { rows: 0, invalid: 0 });
  } finally {
    signal.removeEventListener('abort', onSignal);
    progress.stop();
    await Promise.all([report.close(), rejects?.close()]);
  }
  return finish(run, invalidTotal);
}

/** One mapping's stage, with its counters and progress. */
async function stage(run: Run, index: number, mapping: ResolvedMapping, { rows, invalid }: FileCounts): Promise<void> {
  const { transport, ledger, progress } = run.deps;
  run.deps.beforeStage?.();
  const def = resourceDef(mapping.resource);
  const file = displayPath(mapping.source.path, run.options.cwd);
  const summary = newFileSummary(file, mapping.resource);
  run.files.push(summary);
  const bar = progress.stage(`${def.stage}: ${file}`, rows);
  const before = transport.stats();
  const started = Date.now();
  checkInputUnchanged(run, mapping, 'since the validation pass read it');
  const [opened] = await openSources([mapping]);
  const source = opened!.source;
  const info = { index, mapping, def, file };
  const cascade = cascadeOf(def, file, run.parents);
  const reject = (
    row: { readonly fields: readonly string[]; readonly line: number; readonly raw?: string | undefined },
    message: string,
  ) => run.rejects?.write(mapping, source, row.fields, message, row.line, row.raw);
  const chosen = await strategyFor(run, info, { cascade, reject }, rows - invalid);
  // Lines wait for every earlier line; the window bounds memory when one slow row holds back the rest.
  const windowSize = Math.max(256, run.options.concurrency * 16);
  const lines = inputOrderLines(run.report, mapping);
  try {
    await runStage({
      stage: info,
      source,
      strategy: chosen.strategy,
      cascade,
      ledger,
      state: run.state,
      inFlight: run.inFlight,
      windowSize,
      options: run.options,
      summary,
      progress: bar,
      resumed: run.resumed,
      sync: run.syncs[index],
      writeLine: lines.writeLine,
      reject,
    });
  } finally {
    await lines.end();
    chosen.close();
  }
  summary.bulk = chosen.bulkStats();
  if (run.state.failure !== undefined) throw run.state.failure;
  checkInputUnchanged(run, mapping, "while its rows were sent: the lines after the change may not be the file's");
  // Stopped early only when the stop left rows of this stage for the resume: unsent (`not_sent`),
  // or waited on no more (`unknown`: a bulk import still running). A stop that came with the
  // stage's last request in flight, answered, leaves the stage complete.
  const left = summary.counts.not_sent + summary.counts.unknown;
  bar.finish(run.state.stopReason !== undefined && left > 0);
  countTransport(summary, before, transport.stats(), started);
}

/** Stops the run when a stage's input is not the file the run started with (`inputStamp`). */
function checkInputUnchanged(run: Run, mapping: ResolvedMapping, when: string): void {
  if (inputStamp(mapping.source.path) === run.stamps.get(mapping.source.path)) return;
  const file = displayPath(mapping.source.path, run.options.cwd);
  const folder = displayPath(run.deps.ledger.runDir, run.options.cwd);
  // A resume checks that its inputs are the ones its run started with: it refuses the new file.
  run.state.stop({
    kind: 'input',
    message: `${file} was rewritten ${when}; this run cannot be resumed with the new file: once the export is complete, put back the file the run started with and resume it, or move ${folder} away and start a new run (an incremental one skips the rows this run had accepted)`,
  });
}

/** How the stage sends its valid rows: one request each, or in bulk chunks (`chooseStrategy`). */
function strategyFor(
  run: Run,
  info: StageInfo,
  { cascade, reject }: Pick<SendDeps, 'cascade' | 'reject'>,
  validRows: number,
): Promise<ChosenStrategy> {
  const { transport, ledger } = run.deps;
  return chooseStrategy(
    info,
    { transport, ledger, state: run.state, gate: run.gate, cascade, reject },
    {
      validRows,
      bulk: run.options.bulk,
      inFlight: run.inFlight,
      signal: run.deps.signal,
      cwd: run.options.cwd,
      resendUnknown: run.options.resendUnknown,
      sync: run.syncs[info.index],
      planOptions: run.options,
    },
  );
}

/** Rows sent in time order (`order: timestamp`) still reach the report in input order. */
function inputOrderLines(
  report: ReportWriter,
  mapping: ResolvedMapping,
): { writeLine(line: ReportLine): Promise<void>; end(): Promise<void> | undefined } {
  const write = async (line: ReportLine) => {
    await report.write(line);
  };
  const reordered = mapping.order === 'timestamp' ? reorderByLine(write) : undefined;
  return {
    writeLine: reordered ? async (line: ReportLine) => reordered.push(line) : write,
    end: () => reordered?.end(),
  };
}

/** The stage's share of the transport's counters, and its time. */
function countTransport(summary: FileSummary, before: TransportStats, after: TransportStats, started: number): void {
  summary.requests = after.requests - before.requests;
  summary.retries = after.retries - before.retries;
  summary.throttled = after.throttled - before.throttled;
  summary.elapsedMs = Date.now() - started;
}

/**
 * The run's end. A run stopped by a signal or a fatal condition stays open for `resume`, and so
 * does one that left rows `not_sent` (the API unreachable, 429s that never ended, --fail-on-invalid
 * on a resume). Rows in doubt do not keep it open: `resume --resend-unknown` reopens a finished
 * run that has them.
 */
async function finish(run: Run, invalidTotal: number): Promise<LiveRunResult> {
  const { ledger, signal } = run.deps;
  const { options, state } = run;
  const interrupted = signal.aborted ? String(signal.reason) : undefined;
  if (!interrupted && !state.fatal) {
    const sentAny = Object.values(ledger.counts()).some((n) => n > 0);
    if (totalsOf(run.files).not_sent === 0 || (!sentAny && options.failOnInvalid && invalidTotal > 0))
      await ledger.markFinished();
  }
  const summary = summarise(
    'live',
    run.files,
    {
      report: displayPath(options.report, options.cwd),
      rejects: run.rejects?.files().map((f) => displayPath(f, options.cwd)) ?? [],
      payloads: undefined,
    },
    {
      rate: options.rate,
      limit: options.limit,
      aborted: interrupted ? `interrupted by ${interrupted}; ${state.resumeHint}` : state.aborted,
    },
  );
  const notes = run.deps.sync?.notes() ?? [];
  return { ...summary, ...(notes.length > 0 && { notes }), interrupted, fatal: state.fatal };
}
