import type { LoadedJob } from '../config/load-job.js';
import { HttpError } from '../errors.js';
import type { Ledger, LedgerEntry, Outcome } from '../ledger/index.js';
import { createRejectsWriter } from '../report/rejects-writer.js';
import type { ReportLine } from '../report/report-line.js';
import { createReportWriter } from '../report/report-writer.js';
import { newFileSummary, summarise, totalsOf, type FileSummary, type RunSummary } from '../report/summary.js';
import { resourceDef } from '../resources/index.js';
import type { Transport } from '../transport/index.js';
import { displayPath } from './display-path.js';
import { FailedParents } from './failed-parents.js';
import type { LiveImportOptions } from './live-options.js';
import { openSources } from './open-sources.js';
import { planOutputs } from './output-paths.js';
import { planRows, type PlannedRow } from './plan-rows.js';
import { validationPass } from './validation-pass.js';
import { IN_DOUBT_MESSAGE, resumeDecision } from './resume-decision.js';
import type { Progress } from './progress.js';
import { Semaphore } from './semaphore.js';
import { inDependencyOrder } from './stage-order.js';

export interface LiveImportDeps {
  readonly transport: Transport;
  readonly ledger: Ledger;
  readonly progress: Progress;
  /** Aborted on SIGINT/SIGTERM: stop taking rows, let in-flight requests finish. */
  readonly signal: AbortSignal;
}

export interface LiveRunResult extends RunSummary {
  /** Set when a signal stopped the run (its name). */
  readonly interrupted: string | undefined;
  /** True when a fatal answer (401) or a broken ledger stopped the run: exit code 3. */
  readonly fatal: boolean;
}

type Row = PlannedRow & { readonly file: string };

/**
 * A report line, and what it tells the cascade. The effect runs when the line is written, in
 * input order, as a resumed run replays the ledger: which of two rows of one key answered first
 * must not decide whether their children are sent.
 */
interface Settled {
  readonly line: ReportLine;
  readonly effect?: (() => void) | undefined;
}

const settled = (line: ReportLine, effect?: () => void): Settled => ({ line, effect });

/**
 * The live import (issue 4) with its ledger (issue 5): validate the whole job, then send every
 * valid row in dependency order, one stage after the other, at most `concurrency` in flight,
 * writing one report line per input record in input order.
 */
export async function runLiveImport(job: LoadedJob, options: LiveImportOptions, deps: LiveImportDeps): Promise<LiveRunResult> {
  const { transport, ledger, progress, signal } = deps;
  const mappings = inDependencyOrder(job.mappings);
  const rejectsPaths = planOutputs(job, mappings, options);
  const totals = await validationPass(mappings, options);

  let stopReason: string | undefined;
  let aborted: string | undefined;
  let fatal = false;
  let failure: unknown;
  const invalidTotal = totals.reduce((n, t) => n + t.invalid, 0);
  if (options.failOnInvalid && invalidTotal > 0) {
    stopReason = `not sent: --fail-on-invalid and ${invalidTotal} row${invalidTotal === 1 ? ' is' : 's are'} invalid`;
    aborted = stopReason;
  }
  /** A fatal condition (401, a broken ledger) stops the run: exit 3, nothing more is sent; the first reason stands. */
  const stopFatally = (why: string, notSent: string) => {
    fatal = true;
    aborted ??= why;
    stopReason ??= notSent;
  };
  const onSignal = () => {
    stopReason ??= `not sent: the run was interrupted (${String(signal.reason)}); resume with: engage-import resume ${displayPath(ledger.runDir, options.cwd)}`;
  };
  if (signal.aborted) onSignal();
  signal.addEventListener('abort', onSignal, { once: true });

  const report = createReportWriter(options.report);
  const rejects = rejectsPaths ? createRejectsWriter(rejectsPaths) : undefined;
  const parents = new FailedParents();
  const inFlight = new Semaphore(options.concurrency);
  // Lines wait here until every earlier line is written, so the report keeps input order; the
  // window bounds memory when one slow row holds back the ones after it.
  const window = Math.max(256, options.concurrency * 16);
  const files: FileSummary[] = [];
  let firstAnswer: Promise<void> | undefined;

  try {
    for (const [index, mapping] of mappings.entries()) {
      const def = resourceDef(mapping.resource);
      const file = displayPath(mapping.source.path, options.cwd);
      const summary = newFileSummary(file, mapping.resource);
      files.push(summary);
      const stage = progress.stage(`${def.stage}: ${file}`, totals[index]?.rows ?? 0);
      const before = transport.stats();
      const started = Date.now();
      const pending: Promise<Settled>[] = [];
      const [opened] = await openSources([mapping]);
      const source = opened!.source;

      const writeHead = async () => {
        const { line, effect } = await pending.shift()!;
        effect?.();
        summary.counts[line.status]++;
        stage.tick(line.status);
        await report.write(line);
      };

      const reject = (row: Row, message: string) => rejects?.write(mapping, source, row.fields, message, row.line, 'raw' in row ? row.raw : undefined);

      const succeeded = (row: Row, id: string | undefined) => () => parents.succeed(def.identity(row.payload ?? {}, id));
      const failed = (row: Row, how: 'failed' | 'invalid' | 'skipped') => () => parents.fail(def.identity(row.payload ?? {}, undefined), { file, line: row.line, how });

      /**
       * A broken ledger or disk stops the run like a 401 (issue 4: aborted, exit 3): nothing more
       * is sent, and every later row is still reported, `not_sent`.
       */
      const ledgerBroke = (error: unknown): string => {
        const message = error instanceof Error ? error.message : String(error);
        stopFatally(`the run stopped: ${message}`, `not sent: the run stopped on an error (${message})`);
        return message;
      };

      /** Send one row: its intent in the ledger first, then the request, then the answer in the ledger. */
      const send = async (row: Row & { status: 'valid' }, before: LedgerEntry | undefined): Promise<Settled> => {
        const base = { file, line: row.line, resource: mapping.resource, key: row.key };
        const notSent = (message: string): Settled => settled({ ...base, status: 'not_sent', message });
        // The run's first request goes alone: a wrong key then costs one 401, not `concurrency`.
        let openGate: (() => void) | undefined;
        if (firstAnswer === undefined) firstAnswer = new Promise<void>((resolve) => (openGate = resolve));
        else await firstAnswer;
        try {
          if (stopReason !== undefined) return notSent(stopReason);
          try {
            await ledger.recordIntent(index, row.line);
          } catch (error) {
            ledgerBroke(error);
            return notSent(stopReason!);
          }

          /**
           * The request did not leave after all: the ledger goes back to what it said before
           * (nothing, or `unknown` for a row resent with --resend-unknown, which stays in doubt).
           */
          const undoIntent = async (): Promise<void> => {
            try {
              if (before === undefined) await ledger.forget(index, row.line);
              else if (before.state !== 'intent') await ledger.recordOutcome(index, row.line, { state: before.state, status: before.status ?? undefined, id: before.id ?? undefined, message: before.message ?? undefined });
            } catch (error) {
              ledgerBroke(error);
            }
          };
          /** A row that was in doubt before this run and still is: say both. */
          const stillInDoubt = (doubt: string, why: string): Settled => settled({ ...base, status: 'unknown', message: `${doubt}; resending it was stopped: ${why}` });
          const doubt = doubtBefore(before, row.idempotent);

          let outcome;
          try {
            outcome = await transport.send({ method: row.call.method, path: row.call.path, body: row.call.body, idempotent: row.idempotent });
          } catch (error) {
            // 401 (and the other conditions no row can get past: a redirect, a refused TLS
            // certificate): this row's request was refused, nothing applied; stop the run at once
            // (issue 4) and keep it resumable.
            if (!(error instanceof HttpError)) throw error;
            stopFatally(error.message, `not sent: ${error.message}`);
            await undoIntent();
            if (doubt !== undefined) return stillInDoubt(doubt, error.message);
            return settled({ ...base, status: 'not_sent', http_status: error.status, message: stopReason });
          }

          /** The answer in the ledger; if the ledger fails, the row's report line still says what the API answered. */
          const record = async (entry: Outcome): Promise<string> => {
            try {
              await ledger.recordOutcome(index, row.line, entry);
              return '';
            } catch (error) {
              return ` (the run's ledger could not record this answer: ${ledgerBroke(error)}; a resume will report this row as in doubt)`;
            }
          };
          switch (outcome.kind) {
            case 'ok': {
              const note = await record({ state: 'ok', status: outcome.status, id: outcome.id });
              return settled({ ...base, status: 'ok', http_status: outcome.status, id: outcome.id, ...(note && { message: note.trim() }) }, succeeded(row, outcome.id));
            }
            case 'failed': {
              const note = await record({ state: 'failed', status: outcome.status, message: outcome.message });
              await reject(row, outcome.message);
              return settled({ ...base, status: 'failed', http_status: outcome.status, message: outcome.message + note }, failed(row, 'failed'));
            }
            case 'unknown': {
              const note = await record({ state: 'unknown', status: outcome.status, message: outcome.message });
              return settled({ ...base, status: 'unknown', http_status: outcome.status, message: outcome.message + note });
            }
            case 'not_sent':
              if (outcome.mayHaveApplied) {
                // It left and got a 5xx or lost its answer before the run stopped: it may have been
                // applied. The intent stays, so the resume treats it as in flight.
                return settled({ ...base, status: 'unknown', message: `${outcome.message}; it may have been applied` });
              }
              // Every attempt was refused (429) or never left: the service did not apply it.
              await undoIntent();
              if (doubt !== undefined) return stillInDoubt(doubt, outcome.message);
              return notSent(stopReason ?? outcome.message);
          }
        } finally {
          openGate?.();
        }
      };

      /** Anything else thrown while sending is a bug: stop sending, report the row, rethrow after the report. */
      const guarded = (row: Row & { status: 'valid' }, before: LedgerEntry | undefined): Promise<Settled> =>
        send(row, before).catch((error: unknown) => {
          failure ??= error;
          stopReason ??= 'not sent: the run stopped on an error (see the message above)';
          return settled({ file, line: row.line, resource: mapping.resource, key: row.key, status: 'unknown', message: `stopped on an error while this row was being sent: ${error instanceof Error ? error.message : String(error)}` });
        });

      for await (const planned of planRows(mapping, opened!.source, options)) {
        const row: Row = { ...planned, file };
        while (pending.length >= window) await writeHead();
        const base = { file, line: row.line, resource: mapping.resource, key: row.key };
        const now = (line: ReportLine, effect?: () => void) => pending.push(Promise.resolve(settled(line, effect)));
        if (row.status === 'invalid') {
          await reject(row, row.message);
          now({ ...base, status: 'invalid', message: row.message }, row.payload ? failed(row, 'invalid') : undefined);
          continue;
        }
        const before = ledger.get(index, row.line);
        const decision = resumeDecision(before, row.idempotent, options.resendUnknown);
        if (decision.kind === 'report') {
          // Resumed run: this row has its outcome already; never send it again.
          const known = decision.entry;
          const effect = known.state === 'ok' ? succeeded(row, known.id ?? undefined) : known.state === 'failed' ? failed(row, 'failed') : undefined;
          now({ ...base, status: known.state as 'ok' | 'failed' | 'unknown', http_status: known.status ?? undefined, id: known.id ?? undefined, message: known.message ?? undefined }, effect);
          continue;
        }
        if (decision.kind === 'in_doubt') {
          // In flight when the last run stopped (issue 5): the intent stays in the ledger, so a
          // later `resume --resend-unknown` can still send it.
          now({ ...base, status: 'unknown', message: IN_DOUBT_MESSAGE });
          continue;
        }
        // Parents are all in earlier stages, whose lines are all written: the cascade is complete.
        const blocked = parents.blockedBy(def.parents(row.payload));
        if (blocked !== undefined) {
          now({ ...base, status: 'skipped', message: blocked }, failed(row, 'skipped'));
          await reject(row, blocked);
          continue;
        }
        if (stopReason !== undefined) {
          // A row resent with --resend-unknown that did not go: still in doubt, as the ledger says.
          const doubt = doubtBefore(before, row.idempotent);
          if (doubt !== undefined) now({ ...base, status: 'unknown', message: `${doubt}; not resent: ${stopReason}` });
          else now({ ...base, status: 'not_sent', message: stopReason });
          continue;
        }
        await inFlight.acquire();
        pending.push(guarded(row as Row & { status: 'valid' }, before).finally(() => inFlight.release()));
      }
      // A stage finishes before the next begins, so that dependents find their parents (issue 4).
      while (pending.length > 0) await writeHead();
      if (failure !== undefined) throw failure;
      stage.finish();
      const after = transport.stats();
      summary.requests = after.requests - before.requests;
      summary.retries = after.retries - before.retries;
      summary.throttled = after.throttled - before.throttled;
      summary.elapsedMs = Date.now() - started;
    }
  } finally {
    signal.removeEventListener('abort', onSignal);
    progress.stop();
    await Promise.all([report.close(), rejects?.close()]);
  }
  const interrupted = signal.aborted ? String(signal.reason) : undefined;
  // A run stopped by a signal or a fatal answer (401) stays open for `resume`, and so does one
  // that left rows unsent after sending some (--fail-on-invalid on a resume). Rows in doubt do not
  // keep it open: `resume --resend-unknown` reopens a finished run that has them.
  if (!interrupted && !fatal) {
    const sentAny = Object.values(ledger.counts()).some((n) => n > 0);
    if (totalsOf(files).not_sent === 0 || !sentAny) await ledger.markFinished();
  }
  const summary = summarise(
    'live',
    files,
    { report: displayPath(options.report, options.cwd), rejects: rejects?.files().map((f) => displayPath(f, options.cwd)) ?? [], payloads: undefined },
    {
      rate: options.rate,
      limit: options.limit,
      aborted: interrupted ? `interrupted by ${interrupted}; resume with: engage-import resume ${displayPath(ledger.runDir, options.cwd)}` : aborted,
    },
  );
  return { ...summary, interrupted, fatal };
}

/**
 * Why a row was already in doubt before this run (what the report says if it is not resent now):
 * a lost answer (`unknown`), or a non-idempotent request in flight at a crash (`intent`). An
 * idempotent one in flight is simply sent again, so an unsent one is just `not_sent`.
 */
function doubtBefore(before: LedgerEntry | undefined, idempotent: boolean): string | undefined {
  if (before?.state === 'unknown') return before.message ?? 'the request may have been applied';
  if (before?.state === 'intent' && !idempotent) return IN_DOUBT_MESSAGE;
  return undefined;
}
