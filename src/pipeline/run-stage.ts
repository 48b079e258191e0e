import { join } from 'node:path';
import type { Ledger, LedgerEntry } from '../ledger/index.js';
import type { ReportLine } from '../report/report-line.js';
import type { FileSummary } from '../report/summary.js';
import type { CsvSource } from '../source/csv-source.js';
import { IN_DOUBT_MESSAGE, inDoubtBefore, resumeDecision } from '../transport/in-doubt.js';
import type { Cascade } from './cascade.js';
import type { LiveImportOptions } from './live-options.js';
import { inSendOrder } from '../sort/send-order.js';
import { keyOrder } from './key-order.js';
import { planRows, type PlannedRow } from './plan-rows.js';
import type { StageProgress } from './progress.js';
import { settled, ReportWindow, type Settled } from './report-window.js';
import type { RunState } from './run-state.js';
import type { Semaphore } from './semaphore.js';
import { baseLine, doubtBefore } from './send-row.js';
import type { SendableRow, StageInfo, StageStrategy } from './stage-strategy.js';
import type { SourceClassifier } from '../sync/index.js';
import { withSyncVerdicts, type SyncVerdict } from './sync-verdicts.js';

/** Everything one stage needs; the strategy decides how valid rows reach the API. */
export interface StageRun {
  readonly stage: StageInfo;
  readonly source: CsvSource;
  readonly strategy: StageStrategy;
  readonly cascade: Cascade;
  readonly ledger: Ledger;
  readonly state: RunState;
  readonly inFlight: Semaphore;
  readonly windowSize: number;
  readonly options: LiveImportOptions;
  readonly summary: FileSummary;
  readonly progress: StageProgress;
  readonly writeLine: (line: ReportLine) => Promise<void>;
  /** Writes a row to the rejects file. */
  readonly reject: (
    row: { readonly fields: readonly string[]; readonly line: number; readonly raw?: string | undefined },
    message: string,
  ) => Promise<void> | undefined;
  /**
   * Whether the ledger held rows when the run began (a resume): only then may a row have an
   * outcome before this stage reaches it, so a new run skips the lookup per row. Default true.
   */
  readonly resumed?: boolean | undefined;
  /** The sync state's classifier of this file (incremental runs decide here which rows not to send). */
  readonly sync?: SourceClassifier | undefined;
}

/**
 * One stage: every record of one CSV, in input order, each to exactly one report line. Rows with
 * an outcome are reported from the ledger, rows whose parent failed are skipped, rows after the
 * run stopped are `not_sent`; the others go to the strategy, at most `concurrency` in flight.
 */
export async function runStage(run: StageRun): Promise<void> {
  const batching = run.strategy.holds !== undefined;
  const size = Math.max(run.windowSize, run.strategy.holds ?? 0);
  const window = new ReportWindow(
    size,
    async ({ line, effect }: Settled) => {
      if (effect !== undefined) run.cascade.apply(effect);
      run.summary.counts[line.status]++;
      run.summary.errors.add(line.status, line.line, line.message);
      run.progress.tick(line.status);
      await run.writeLine(line);
    },
    // A batching strategy's chunk fills with the rows it may send, however many lines settled at
    // once (unchanged, skipped, invalid) sit between them; those wait behind it, up to this bound,
    // on disk beyond the first few thousand.
    batching ? Math.max(size, HELD_SETTLED_LINES) : size,
    batching
      ? {
          inMemory: HELD_IN_MEMORY,
          file: join(run.ledger.runDir, `held-lines-${run.stage.index}.ndjson`),
          // A full disk: the run stops as on any disk failure (exit 3); the held lines stay in memory.
          onFailure: (error: Error) => void run.state.ledgerBroke(error),
        }
      : undefined,
  );
  try {
    await sendRows(run, window);
  } finally {
    window.close();
  }
}

/** Every record of the stage, in input order, to the window: settled now, or through the strategy. */
async function sendRows(run: StageRun, window: ReportWindow): Promise<void> {
  const batching = run.strategy.holds !== undefined;
  const planned = inSendOrder(run.stage.mapping, planRows(run.stage.mapping, run.source, run.options));
  const inKeyOrder = keyOrder(run.stage.mapping);
  for await (const { row: plannedRow, verdict } of withSyncVerdicts(
    planned,
    run.sync,
    (row) => run.cascade.blockedBy(row.payload) !== undefined,
  )) {
    const row = { ...plannedRow, file: run.stage.file, ...(verdict && { sync: verdict }) };
    const pause = run.strategy.readingPause?.();
    if (pause !== undefined) await pause;
    // Lines are written as soon as every line before them is: only lines behind a row still
    // waiting for its answer are held.
    while (window.full || window.headReady) {
      // A batching strategy is asked to move only when the oldest line still waits for it, and
      // again while it does and the strategy settled something (never blocking on a batch it holds).
      if (!window.headReady && (await run.strategy.flush?.('window_full')) === true) continue;
      await window.writeHead();
    }
    const before =
      row.status === 'valid' && run.resumed !== false ? run.ledger.get(run.stage.index, row.line) : undefined;
    const now = decideWithoutSending(run, row, before, verdict);
    if (now !== undefined) {
      window.push(await now);
      continue;
    }
    if (batching) {
      window.push(guarded(run, row as SendableRow, before));
      continue;
    }
    await run.inFlight.acquire();
    window.push(
      inKeyOrder(row.payload, () => guarded(run, row as SendableRow, before)).finally(() => run.inFlight.release()),
    );
  }
  // A batching strategy settles everything it holds here: the next stage starts only after.
  await run.strategy.flush?.('stage_end');
  // A stage finishes before the next begins, so that dependents find their parents.
  await window.drain();
}

/**
 * Lines a batching stage holds behind its oldest waiting row, at most. A bulk chunk fills to its
 * rows when at least 1 row in 100 is sent (a chunk of 5,000); where fewer change (an incremental
 * run), a chunk closes at this bound instead, one import per 500,000 lines. Beyond
 * `HELD_IN_MEMORY` they wait on disk, in the run's folder: about 200 bytes a line there, 100 MB at
 * this bound, against about 450 bytes of heap a line (its report line, and an effect that keeps
 * only key strings), which the heap would hold a few times over between full collections.
 */
const HELD_SETTLED_LINES = 500_000;
const HELD_IN_MEMORY = 10_000;

/** The report line of a row that is not sent now, or undefined when it goes to the strategy. */
function decideWithoutSending(
  run: StageRun,
  row: PlannedRow & { readonly file: string },
  before: LedgerEntry | undefined,
  verdict: SyncVerdict | undefined,
): Promise<Settled> | Settled | undefined {
  const base = baseLine(run.stage, row);
  if (row.status === 'invalid') return invalidRow(run, row, base);
  const decision = resumeDecision(
    before?.state,
    row.idempotent || run.strategy.upsert === true,
    run.options.resendUnknown || (before?.state === 'unknown' && run.strategy.awaitsImport?.(row) === true),
  );
  if (decision.kind === 'report' && before !== undefined) {
    // Resumed run: this row has its outcome already; never send it again.
    run.strategy.answeredFromLedger?.(row, before);
    // A create refused because the record exists already leaves it in the account, as in the run that sent it.
    const exists = before.state === 'failed' && run.stage.def.refusedAsExisting?.(before.message ?? '') === true;
    const effect =
      before.state === 'ok' || exists
        ? run.cascade.succeeded(row, before.id ?? undefined)
        : before.state === 'failed'
          ? run.cascade.failed(row, 'failed')
          : undefined;
    const line = settled(
      {
        ...base,
        status: before.state as 'ok' | 'failed' | 'unknown',
        http_status: before.status ?? undefined,
        id: before.id ?? undefined,
        message: before.message ?? undefined,
      },
      effect,
    );
    // A row the API refused before the crash goes to this run's rejects file too, as it did to
    // the killed run's, which this run's file replaces.
    const rejected = before.state === 'failed' ? run.reject(row, before.message ?? '') : undefined;
    return rejected === undefined ? line : rejected.then(() => line);
  }
  if (decision.kind === 'in_doubt') return inFlightAtCrash(run, row, base, verdict);
  // Incremental run: the account has this row already (unchanged, already_sent), or a row of this
  // run with its key is sent instead (superseded). Children of an unchanged parent may be sent.
  // A row this run left in doubt and the user resends (`--resend-unknown`) is sent although the
  // state reports its own doubt: the ledger's answer comes first.
  const resending = decision.kind === 'send' && inDoubtBefore(before?.state) && verdict?.status === 'unknown';
  if (verdict !== undefined && !verdict.send && !resending) {
    const effect =
      verdict.status === 'unchanged' || verdict.status === 'already_sent'
        ? run.cascade.succeeded(row, undefined)
        : undefined;
    return settled(
      { ...base, status: verdict.status, ...(verdict.message !== undefined && { message: verdict.message }) },
      effect,
    );
  }
  // Parents are all in earlier stages, whose lines are all written: the cascade is complete.
  const blocked = run.cascade.blockedBy(row.payload);
  if (blocked !== undefined) return skippedRow(run, row, base, blocked);
  if (run.state.stopReason !== undefined) {
    // A row resent with --resend-unknown that did not go: still in doubt, as the ledger says.
    const doubt = doubtBefore(before, row.idempotent);
    if (doubt !== undefined)
      return settled({ ...base, status: 'unknown', message: `${doubt}; not resent: ${run.state.stopReason}` });
    return settled({ ...base, status: 'not_sent', message: run.state.stopReason });
  }
  return undefined;
}

/**
 * A non-idempotent row in flight when the last run stopped: `unknown`, and recorded so. The
 * outcome goes to the ledger with the row's sync key, so an event's doubt enters the sync state
 * in the same transaction, as a live `unknown` does: no later run sends it again silently. A
 * later `resume --resend-unknown` still sends it (an `unknown` row is resent as an intent was).
 */
async function inFlightAtCrash(
  run: StageRun,
  row: PlannedRow,
  base: ReturnType<typeof baseLine>,
  verdict: SyncVerdict | undefined,
): Promise<Settled> {
  let note = '';
  try {
    await run.ledger.recordOutcome(run.stage.index, row.line, {
      state: 'unknown',
      message: IN_DOUBT_MESSAGE,
      sync: verdict?.key,
    });
  } catch (error) {
    note = ` (the run's ledger could not record this: ${run.state.ledgerBroke(error)}; it stays in doubt there)`;
  }
  return settled({ ...base, status: 'unknown', message: IN_DOUBT_MESSAGE + note });
}

/** A child of a parent that did not make it: skipped, and in the rejects, so that it goes again with its fixed parent. */
async function skippedRow(
  run: StageRun,
  row: PlannedRow,
  base: ReturnType<typeof baseLine>,
  blocked: string,
): Promise<Settled> {
  await run.reject(row, blocked);
  return settled({ ...base, status: 'skipped', message: blocked }, run.cascade.failed(row, 'skipped'));
}

async function invalidRow(
  run: StageRun,
  row: Extract<PlannedRow, { status: 'invalid' }>,
  base: ReturnType<typeof baseLine>,
): Promise<Settled> {
  await run.reject(row, row.message);
  return settled(
    { ...base, status: 'invalid', message: row.message },
    row.payload ? run.cascade.failed(row, 'invalid') : undefined,
  );
}

/** Anything else thrown while sending is a bug: stop sending, report the row, rethrow after the report. */
function guarded(run: StageRun, row: SendableRow, before: LedgerEntry | undefined): Promise<Settled> {
  // The handler keeps only the row's names: a batching strategy holds many rows' promises at once.
  const names = { file: row.file, line: row.line, key: row.key };
  return run.strategy.send(row, before).catch((error: unknown) => {
    run.state.stop({ kind: 'bug', error });
    return settled({
      ...baseLine(run.stage, names),
      status: 'unknown',
      message: `stopped on an error while this row was being sent: ${error instanceof Error ? error.message : String(error)}`,
    });
  });
}
