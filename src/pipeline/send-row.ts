import { uncarriedField } from '../bulk/chunk-csv.js';
import { HttpError } from '../errors.js';
import type { Ledger, LedgerEntry, Outcome } from '../ledger/index.js';
import { failureLine } from '../report/failure-line.js';
import type { ReportLine } from '../report/report-line.js';
import { IN_DOUBT_MESSAGE, inDoubtBefore } from '../transport/in-doubt.js';
import type { SendOutcome, Transport } from '../transport/index.js';
import type { Cascade } from './cascade.js';
import { settled, type Settled } from './report-window.js';
import type { RunState } from './run-state.js';
import type { SendableRow, StageInfo, StageStrategy } from './stage-strategy.js';

/** What sending one row needs from the run. */
export interface SendDeps {
  readonly transport: Transport;
  readonly ledger: Ledger;
  readonly state: RunState;
  readonly gate: FirstRequestGate;
  readonly cascade: Cascade;
  /** Writes a row to the rejects file (a row the API refused, to fix and import again). */
  readonly reject: (row: Pick<SendableRow, 'fields' | 'line'>, message: string) => Promise<void> | undefined;
}

/**
 * The run's first request goes alone: a wrong key then costs one 401, not `concurrency`. Every
 * later request waits for that first answer.
 */
export class FirstRequestGate {
  #first: Promise<void> | undefined;

  /** Resolves when this request may go; call the returned function once it has its answer. */
  async pass(): Promise<() => void> {
    if (this.#first !== undefined) {
      await this.#first;
      return () => undefined;
    }
    let open: () => void = () => {};
    this.#first = new Promise<void>((resolve) => (open = resolve));
    return open;
  }
}

/** The default strategy: each row its own request, its intent in the ledger first. */
export function sendEachRow(stage: StageInfo, deps: SendDeps): StageStrategy {
  // Products this stage created, by custom_id, with the line that did: a later row of the same
  // product is refused ("exists"), and its message names that line.
  const created = stage.def.refusesDuplicateCreate === undefined ? undefined : new Map<string, number>();
  return {
    async send(row, before) {
      const open = await deps.gate.pass();
      try {
        return await sendOne(stage, deps, row, before, created);
      } finally {
        open();
      }
    },
  };
}

/** One row: its intent in the ledger, then the request, then the answer in the ledger. */
async function sendOne(
  stage: StageInfo,
  deps: SendDeps,
  row: SendableRow,
  before: LedgerEntry | undefined,
  created: Map<string, number> | undefined,
): Promise<Settled> {
  const { ledger, state, transport } = deps;
  const base = baseLine(stage, row);
  // Not sent now: a row in doubt before this run (resent with --resend-unknown) stays in doubt.
  const unsent = (why: string) => unsentLine(base, before, row.idempotent, why);
  if (state.stopReason !== undefined) return unsent(state.stopReason);
  // The intent is committed once the request has its rate-limit slot, just before it leaves: a
  // crash while rows wait for their slot leaves them without one, provably unsent (`not_sent` on
  // resume), where an intent would make each of them `unknown`.
  let intentFailed: unknown;
  const recordIntent = async (): Promise<boolean> => {
    try {
      await ledger.recordIntent(stage.index, row.line);
      return true;
    } catch (error) {
      intentFailed = error ?? new Error('the intent could not be recorded');
      return false;
    }
  };
  let outcome: SendOutcome;
  try {
    outcome = await transport.send({
      method: row.call.method,
      path: row.call.path,
      body: row.call.body,
      idempotent: row.idempotent,
      inDoubt: inDoubtBefore(before?.state),
      exists: stage.def.refusesDuplicateCreate,
      beforeFirstAttempt: recordIntent,
    });
    if (intentFailed !== undefined) {
      state.ledgerBroke(intentFailed);
      return unsent(state.stopReason!);
    }
  } catch (error) {
    // 401 (and the other conditions no row can get past: a redirect, a refused TLS certificate,
    // a breaker): this row's request was refused, nothing applied; stop the run, keep it resumable.
    if (!(error instanceof HttpError)) throw error;
    state.stop({ kind: 'api', message: error.message });
    await undoIntent(stage, deps, row, before);
    const doubt = doubtBefore(before, row.idempotent);
    if (doubt !== undefined) return stillInDoubt(base, doubt, error.message);
    return settled({ ...base, status: 'not_sent', http_status: error.status, message: state.stopReason });
  }
  const stopped = transport.stopped();
  if (stopped !== undefined) state.stop({ kind: 'api', message: stopped.message });
  return settle(stage, deps, row, before, outcome, created);
}

/** The report line of an answered row, its outcome recorded first. */
async function settle(
  stage: StageInfo,
  deps: SendDeps,
  row: SendableRow,
  before: LedgerEntry | undefined,
  outcome: SendOutcome,
  created: Map<string, number> | undefined,
): Promise<Settled> {
  const base = baseLine(stage, row);
  const record = (entry: Outcome) => recordOutcome(stage, deps, row, entry);
  const customId = created === undefined ? undefined : textOf(row.payload['custom_id']);
  switch (outcome.kind) {
    case 'ok': {
      // A request that is not idempotent, sent again while in doubt (--resend-unknown): applied now;
      // if the earlier send was applied too, the account has it twice. Its line says so (and the
      // ledger, for the reports of later resumes), unless the API refuses a second create (a
      // product's custom_id: "already exists"), so that this `ok` proves the earlier send was not applied.
      const resent =
        doubtBefore(before, row.idempotent) !== undefined &&
        !row.idempotent &&
        stage.def.refusesDuplicateCreate === undefined
          ? 'resent while in doubt (--resend-unknown): if the earlier send was applied too, the account has it twice; check it'
          : undefined;
      const said = [outcome.message, resent].filter((m) => m !== undefined && m !== '').join(' ') || undefined;
      // The row's sync key goes with its `ok` outcome: the ledger's outbox, then the sync state.
      const note = await record({
        state: 'ok',
        status: outcome.status,
        id: outcome.id,
        message: said,
        sync: row.sync?.key,
      });
      const message = `${said ?? ''}${note}`.trim();
      if (customId !== undefined && !created!.has(customId)) created!.set(customId, row.line);
      return settled(
        { ...base, status: 'ok', http_status: outcome.status, id: outcome.id, ...(message && { message }) },
        deps.cascade.succeeded(row, outcome.id),
      );
    }
    case 'failed': {
      // A create refused because the record exists already (the same test a resume makes on the
      // ledger's message): the rows that name it as their parent find it in the account, so they
      // are sent, not skipped.
      const exists = stage.def.refusedAsExisting?.(outcome.message) === true;
      const madeBy = customId === undefined ? undefined : created!.get(customId);
      const line = failureLine({
        ...outcome,
        message: outcome.message + (exists ? productExistsNote(row, madeBy) : ''),
      });
      const note = await record({ state: 'failed', status: outcome.status, message: line.message });
      await deps.reject(row, line.message);
      const effect = exists ? deps.cascade.succeeded(row, undefined) : deps.cascade.failed(row, 'failed');
      return settled({ ...base, ...line, message: line.message + note }, effect);
    }
    case 'unknown': {
      // An event's key goes with it too: the next incremental run reports it unknown, never resends it.
      const note = await record({
        state: 'unknown',
        status: outcome.status,
        message: outcome.message,
        sync: row.sync?.key,
      });
      const line = failureLine(outcome);
      return settled({ ...base, ...line, message: line.message + note });
    }
    case 'not_sent':
      return settleNotSent(stage, deps, row, before, outcome);
  }
}

async function settleNotSent(
  stage: StageInfo,
  deps: SendDeps,
  row: SendableRow,
  before: LedgerEntry | undefined,
  outcome: Extract<SendOutcome, { kind: 'not_sent' }>,
): Promise<Settled> {
  const base = baseLine(stage, row);
  // It left and got a 5xx or lost its answer before the run stopped: it may have been applied,
  // and its line says `unknown`. Recorded as such, with its sync key as an `unknown` answer is,
  // so that neither a resume nor the next incremental run sends it again silently.
  if (outcome.mayHaveApplied) {
    const line = failureLine(outcome);
    const note = await recordOutcome(stage, deps, row, {
      state: 'unknown',
      message: line.message,
      sync: row.sync?.key,
    });
    return settled({ ...base, ...line, message: line.message + note });
  }
  // Every attempt was refused (429) or never left: the service did not apply it. Its own words
  // (or the stop that came first), then the run stops: no later row of its key, and no child of
  // its entity in a later stage, goes before it (each finds the run stopped, `not_sent`), and a
  // resume sends them all in file order.
  const why = deps.state.stopReason ?? outcome.message;
  if (outcome.givenUp === true) deps.state.givenUpUnsent(outcome.message);
  await undoIntent(stage, deps, row, before);
  const doubt = doubtBefore(before, row.idempotent);
  if (doubt !== undefined) return stillInDoubt(base, doubt, outcome.message);
  return settled({ ...base, ...failureLine({ ...outcome, message: why }) });
}

/**
 * POST /products/ only creates (products are the one resource with `refusedAsExisting`), so a
 * product that exists already is refused. Say why it may
 * exist, and how the row's values reach it: a product whose request changed since the API
 * accepted it is updated only by the bulk import; another may be an earlier row's, another tool's,
 * or an earlier run's create whose answer was lost (a resend of a create in doubt answered so is
 * `unknown`, not here). In parentheses, without `; `: a failed row's message is
 * split on `; ` into one error group per field error (src/report/error-groups.ts).
 */
function productExistsNote(row: SendableRow, madeBy: number | undefined): string {
  // Two rows of one product in the file: the bulk import takes one row per product too, so only
  // the file can say which row's values are wanted.
  if (madeBy !== undefined)
    return ` (line ${madeBy} of this file created this product in this run: keep one row per product in the file, the one whose values are wanted, and a bulk import updates it)`;
  if (row.sync?.status === 'changed') {
    // Sent per row although the stage went by bulk: a cell cannot carry one of its values.
    const uncarried = uncarriedField(row.payload);
    if (uncarried !== undefined)
      return ` (this product changed since it was created, and products are updated only by the bulk import, which cannot carry ${uncarried[0]}: ${JSON.stringify(uncarried[1])} (an empty cell means "no value"): leave such a field out, with empty: omit, so that the import updates the rest)`;
    return ' (this product changed since it was created, and products are updated only by the bulk import: run with --bulk auto, or set bulk: true in the products mapping)';
  }
  return " (it exists already: made by an earlier row of this file, by another tool, or by an earlier run that reported it unknown. Only the bulk import updates a product, with this row's values: set bulk: true in the products mapping)";
}

const textOf = (v: unknown) => (typeof v === 'string' || typeof v === 'number' ? String(v) : undefined);

/** The answer in the ledger; if the ledger fails, the row's report line still says what the API answered. */
async function recordOutcome(stage: StageInfo, deps: SendDeps, row: SendableRow, entry: Outcome): Promise<string> {
  try {
    await deps.ledger.recordOutcome(stage.index, row.line, entry);
    return '';
  } catch (error) {
    return ` (the run's ledger could not record this answer: ${deps.state.ledgerBroke(error)}; a resume will report this row as in doubt)`;
  }
}

/**
 * The request did not leave after all: the ledger goes back to what it said before (nothing, or
 * `unknown` for a row resent with --resend-unknown, which stays in doubt).
 */
async function undoIntent(
  stage: StageInfo,
  deps: SendDeps,
  row: SendableRow,
  before: LedgerEntry | undefined,
): Promise<void> {
  try {
    await putBack(deps.ledger, stage.index, row.line, before);
  } catch (error) {
    deps.state.ledgerBroke(error);
  }
}

/**
 * A row's ledger entry as it was before this run's intent: none (forgotten), an intent from before
 * a crash (kept: it is the same), or an outcome such as `unknown` (recorded again). For a request
 * or an upload that did not leave.
 */
export async function putBack(
  ledger: SendDeps['ledger'],
  source: number,
  line: number,
  before: LedgerEntry | undefined,
): Promise<void> {
  if (before === undefined) await ledger.forget(source, line);
  else if (before.state !== 'intent')
    await ledger.recordOutcome(source, line, {
      state: before.state,
      status: before.status ?? undefined,
      id: before.id ?? undefined,
      message: before.message ?? undefined,
    });
}

/** A row not sent now: `not_sent`, or still `unknown` (saying both) when it was in doubt before this run. */
export function unsentLine(base: BaseLine, before: LedgerEntry | undefined, idempotent: boolean, why: string): Settled {
  const doubt = doubtBefore(before, idempotent);
  return doubt === undefined ? settled({ ...base, status: 'not_sent', message: why }) : stillInDoubt(base, doubt, why);
}

type BaseLine = Pick<ReportLine, 'file' | 'line' | 'resource' | 'key'>;

export const baseLine = (
  stage: StageInfo,
  row: { readonly file: string; readonly line: number; readonly key: string },
): BaseLine => ({ file: row.file, line: row.line, resource: stage.mapping.resource, key: row.key });

/** A row that was in doubt before this run and still is: say both. */
const stillInDoubt = (base: BaseLine, doubt: string, why: string): Settled =>
  settled({ ...base, status: 'unknown', message: `${doubt}; resending it was stopped: ${why}` });

/**
 * Why a row was already in doubt before this run (what the report says if it is not resent now):
 * it may have been applied (`unknown`), or a non-idempotent request was in flight at a crash
 * (`intent`). An idempotent one in flight is simply sent again, so an unsent one is just `not_sent`.
 */
export function doubtBefore(before: LedgerEntry | undefined, idempotent: boolean): string | undefined {
  if (before?.state === 'unknown') return before.message ?? 'the request may have been applied';
  if (before?.state === 'intent' && !idempotent) return IN_DOUBT_MESSAGE;
  return undefined;
}
