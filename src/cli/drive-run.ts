import type { LoadedJob } from '../config/load-job.js';
import type { OpenLedger } from '../ledger/index.js';
import { runLiveImport } from '../pipeline/live-import.js';
import { createProgress, type Progress } from '../pipeline/progress.js';
import { rowsNotOk } from '../report/report-line.js';
import { displayPath } from '../text/display-path.js';
import { EXISTS_AFTER_DOUBT, rowsInDoubt } from '../transport/in-doubt.js';
import { createTransport, type InDoubtMode } from '../transport/index.js';
import type { CliIo } from './command.js';
import type { RunArgs } from './common-options.js';
import { EXIT } from './exit-codes.js';
import { bulkOptionsOf, type LiveArgs, type SyncModeArgs } from './live-options.js';
import { routeOf, type LiveRunHooks } from './live-run-hooks.js';
import { openRunSync, type RunSync, type RunSyncMode } from './live-sync.js';
import { outputPath, protectedPaths } from './output-args.js';
import { printSummary } from './print-summary.js';
import { runLimits } from './run-limits.js';
import { InterruptedWhileWaiting } from './take-state-lock.js';

/**
 * Drives one live run once its ledger is open: the sync state, the transport, the pipeline, the
 * summary and the exit code; and what an error that ends it leaves behind.
 */
export interface DriveContext {
  readonly io: CliIo;
  readonly args: RunArgs & LiveArgs & Partial<SyncModeArgs>;
  readonly stateDir: string;
  readonly baseUrl: URL;
  readonly apiKey: string;
  readonly inDoubt: InDoubtMode;
  readonly hooks: LiveRunHooks;
  /** Set when an error ends a run whose ledger holds rows: it had begun sending, so it was not refused. */
  readonly ended: { began: boolean };
  /** The command that continues a run of this command, as its stops print it. */
  readonly resumeOf: (runDir: string) => string;
  /** A finished run reopened by this resume (`--resend-unknown`): refused, it is finished again. */
  readonly reopened: boolean;
}

const SILENT: Progress = { stage: () => ({ tick: () => undefined, finish: () => undefined }), stop: () => undefined };

/** `fresh`: a new run, whose folder is removed when it stops by an error before its first row. */
export async function driveRun(
  ctx: DriveContext,
  job: LoadedJob,
  ledgerOfRun: OpenLedger,
  mode: RunSyncMode,
  fresh = false,
): Promise<number> {
  const { io, args, stateDir, ended, resumeOf } = ctx;
  let sync: RunSync | undefined;
  // Requests this command sent (a resume's run holds rows that earlier commands sent).
  const sent = { requests: 0 };
  io.onRunFolder?.(resumeOf(ledgerOfRun.runDir));
  try {
    sync = await openRunSync(
      job,
      stateDir,
      ledgerOfRun,
      mode,
      { dealUpdateMethod: args['deal-update-method'] },
      io.cwd,
      args['accept-mapping-change'] === true,
      args['key-rotated'],
    );
    return await driveWith(ctx, job, ledgerOfRun, sync, sent);
  } catch (error) {
    // Refused before its first request (an input that cannot be read, an output that cannot be
    // written, `--report out/`): nothing was sent, so no unfinished run is left to block the next
    // night, and its log end and alert say `refused`. A resume leaves its run as it was: a
    // finished run it reopened (`--resend-unknown`) is finished again.
    if (fresh) {
      ended.began = !(await ledgerOfRun.closeRemovingIfEmpty());
      if (!ended.began) io.onRunFolder?.(undefined);
    } else {
      ended.began = sent.requests > 0;
      if (!ended.began && ctx.reopened) await ledgerOfRun.markFinished();
    }
    // Ended by an error after rows went (a disk that filled while the report was written): the
    // run is unfinished, and the next import of the job is refused until it is resumed. (Before
    // its first request, the resume command it would print repeats what was refused.)
    if (ended.began && !(error instanceof InterruptedWhileWaiting))
      io.stderr.write(
        `engage-import: the run stopped unfinished; once the cause is mended, resume with: ${resumeOf(ledgerOfRun.runDir)}\n`,
      );
    throw error;
  } finally {
    // The ledger first: its last commits are applied to the state before the state closes.
    await ledgerOfRun.close();
    sync?.close();
  }
}

async function driveWith(
  ctx: DriveContext,
  job: LoadedJob,
  ledgerOfRun: OpenLedger,
  sync: RunSync,
  sent: { requests: number },
): Promise<number> {
  const { io, args, stateDir, baseUrl, apiKey, inDoubt, hooks, resumeOf } = ctx;
  const owner = ledgerOfRun.lockTakenOverFrom;
  if (owner && !args.quiet)
    io.stderr.write(
      `engage-import: took over the lock of ${displayPath(stateDir, io.cwd)} left by process ${owner.pid} on ${owner.hostname}, which is no longer running\n`,
    );
  const transport = createTransport({
    baseUrl,
    apiKey,
    concurrency: args.concurrency,
    inDoubt,
    ...runLimits(args, io),
    // 429s are logged as they happen. A terminal shows progress bars instead (and the count
    // in the summary); a log file (cron) gets one line per pause.
    onEvent: (event) => {
      if (hooks.onTransportEvent(event)) return;
      if (args.quiet || io.stderr.isTTY === true) return;
      if (event.type === 'throttled')
        io.stderr.write(
          `429 on ${event.method} ${routeOf(event.path)}: the whole run pauses ${(event.waitMs / 1000).toFixed(1)} s (${event.source})\n`,
        );
      if (event.type === 'gave_up')
        io.stderr.write(`gave up on ${event.method} ${routeOf(event.path)}: ${event.message}\n`);
    },
  });
  const progress = args.quiet
    ? SILENT
    : createProgress({ stream: io.stderr, tty: io.stderr.isTTY === true, log: hooks.log });
  hooks.start(job.file, displayPath(ledgerOfRun.runDir, io.cwd), job.mappings.length);
  try {
    const result = await runLiveImport(
      job,
      {
        cwd: io.cwd,
        report: outputPath(io.cwd, '--report', args.report),
        rejects: args.rejects === undefined ? undefined : outputPath(io.cwd, '--rejects', args.rejects),
        resumeCommand: resumeOf(ledgerOfRun.runDir),
        // No output may overwrite the key file or anything in the state directory (the ledgers).
        protect: [
          ...protectedPaths(io.cwd, args),
          { path: stateDir, what: 'the state directory (run ledgers)', folder: true },
        ],
        limit: args.limit,
        rate: args.rate,
        concurrency: args.concurrency,
        failOnInvalid: args['fail-on-invalid'],
        resendUnknown: args['resend-unknown'],
        bulk: { ...bulkOptionsOf(args), ...(io.clock && { sleep: io.clock.sleep, now: io.clock.now }) },
        dealUpdateMethod: args['deal-update-method'],
      },
      {
        transport,
        ledger: ledgerOfRun,
        progress,
        signal: io.signal,
        sync: sync.classifier,
        beforeStage: () => applyLast(sync, io, args.quiet),
      },
    );
    // The run's last outcomes (and, once finished, its end) into the sync state.
    applyLast(sync, io, args.quiet);
    printSummary(result, io, args);
    if (!args.quiet) io.stderr.write(`Run ledger: ${displayPath(ledgerOfRun.runDir, io.cwd)}\n`);
    if (!args.quiet && result.interrupted === undefined && !result.fatal) adviseOnDoubts(ledgerOfRun, io, resumeOf);
    if (result.interrupted === 'SIGTERM') return await hooks.finish(result, EXIT.SIGTERM);
    if (result.interrupted !== undefined) return await hooks.finish(result, EXIT.SIGINT);
    if (result.fatal) return await hooks.finish(result, EXIT.ABORTED);
    return await hooks.finish(result, rowsNotOk(result.totals) > 0 ? EXIT.ROWS_NOT_OK : EXIT.OK);
  } finally {
    sent.requests = transport.stats().requests;
    await transport.close();
  }
}

/**
 * Rows in doubt in a run that did not stop: the command that sends them again once checked (a
 * stopped run prints its resume command already, which sends them too with the flag). This run's
 * own, from its ledger (rows in flight at a crash are still intents there): rows an earlier run
 * left in doubt are that run's to resend. A product create answered "exists" after an attempt in
 * doubt gets the same answer however often it is resent: those get their own advice.
 */
function adviseOnDoubts(ledger: OpenLedger, io: CliIo, resumeOf: (runDir: string) => string): void {
  const exists = ledger.countUnknownBecause(EXISTS_AFTER_DOUBT);
  const resendable = rowsInDoubt(ledger.counts()) - exists;
  const them = (n: number, rows: string) => (n === 1 ? `1 ${rows} is` : `${n.toLocaleString('en-US')} ${rows}s are`);
  if (resendable > 0)
    io.stderr.write(
      `${them(resendable, 'row')} unknown (the API may have applied ${resendable === 1 ? 'it' : 'them'}): check the account, then send ${resendable === 1 ? 'it' : 'them'} again with: ${resumeOf(ledger.runDir)} --resend-unknown\n`,
    );
  if (exists > 0)
    io.stderr.write(
      `${them(exists, 'row')} unknown because the API answered that ${exists === 1 ? 'it exists' : 'they exist'} after an attempt that may have created ${exists === 1 ? 'it' : 'them'}: a resend gets the same answer. Check ${exists === 1 ? 'its' : 'their'} values in the account; to update ${exists === 1 ? 'it' : 'them'}, set bulk: true in the products mapping (a bulk import updates an existing product)\n`,
    );
}

/** The state is derived from the ledger: if this fails, the next run's catch-up applies the rest. */
function applyLast(sync: { apply(): void }, io: CliIo, quiet: boolean | undefined): void {
  try {
    sync.apply();
  } catch (error) {
    if (!quiet)
      io.stderr.write(
        `engage-import: the sync state was not brought up to date (${error instanceof Error ? error.message : String(error)}); the next run applies this run's rows from its ledger\n`,
      );
  }
}
