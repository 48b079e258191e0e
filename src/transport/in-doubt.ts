/**
 * The one rule for requests that may have been applied, used by the transport (what to do after
 * one attempt), the pipeline (what a row's report line says) and resume (what a run that stopped
 * does with each row). Everything here is pure: data in, decision out.
 *
 * The promise it keeps: a row whose operation is not idempotent is applied exactly once or
 * reported `unknown`; a row the API did not apply is never called `ok`.
 */

/**
 * What the user chose for non-idempotent requests that may have been applied:
 * - `unknown` (default): never resend them; the row is `unknown` and says what to check.
 * - `resend`: resend them (at least once: the service may apply the row twice).
 */
export type InDoubtMode = 'unknown' | 'resend';

/** The old `--unsafe-retries` spellings, still accepted: only `always` resent lost answers. */
export function inDoubtModeOf(unsafeRetries: 'safe' | 'never' | 'always'): InDoubtMode {
  return unsafeRetries === 'always' ? 'resend' : 'unknown';
}

/** What one attempt came to, as far as the rule cares. */
export type AttemptAnswer =
  /** 2xx with the JSON object the endpoint answers. */
  | 'applied'
  /** 2xx whose body is not a JSON object (an HTML page, a truncated or empty body, an array). */
  | 'malformed_success'
  /** The service refused this attempt (a 4xx): this attempt was not applied. */
  | 'refused'
  /** A create refused because the key it creates exists already. */
  | 'exists'
  /** A 5xx: it may come after the write (a gateway's 502 or 524 says nothing of what the service did). */
  | 'server_error'
  /** The request left and its answer was lost (reset, closed, timed out). */
  | 'lost_answer'
  /** The request provably never left (connection refused, DNS, a port fetch refuses). */
  | 'never_left'
  /** 429: refused for now, not applied. */
  | 'throttled';

/** What becomes of the row after that attempt. `retry` means: send it again. */
export type Verdict = 'retry' | 'unknown' | 'ok' | 'failed' | 'not_sent';

export interface AttemptContext {
  readonly idempotent: boolean;
  readonly mode: InDoubtMode;
  /** An earlier attempt of this row (in this run, or a run before it) may have been applied. */
  readonly mayHaveApplied: boolean;
  /** No attempt (or retry budget, or 429 allowance) is left: a `retry` cannot happen. */
  readonly exhausted: boolean;
}

/**
 * The rule, answer by answer:
 * - applied → ok;
 * - refused → failed, unless an earlier attempt of this row that is not idempotent may have been
 *   applied: a refusal shows only that this attempt was not, so the row is unknown;
 * - malformed_success → unknown: the service answered 2xx, but not as the endpoint does, so
 *   whether it stored anything cannot be told;
 * - exists → failed (the key was taken before this run); unknown when an earlier attempt of this
 *   row may have created it, since "exists" cannot tell that create from a record that was there
 *   before, whose values this row never reached;
 * - server_error, lost_answer → retry when resending is harmless (idempotent) or the user chose
 *   `resend`; otherwise unknown;
 * - never_left, throttled → retry: nothing was applied.
 * A `retry` that cannot happen (exhausted) ends `unknown` if any attempt may have been applied,
 * else `not_sent`: never `failed`, which would send the row to the rejects file to be sent again.
 */
export function verdict(answer: AttemptAnswer, ctx: AttemptContext): Verdict {
  const mayHaveApplied = ctx.mayHaveApplied || answer === 'server_error' || answer === 'lost_answer';
  const wanted = firstVerdict(answer, ctx);
  if (wanted !== 'retry' || !ctx.exhausted) return wanted;
  return mayHaveApplied ? 'unknown' : 'not_sent';
}

function firstVerdict(answer: AttemptAnswer, ctx: AttemptContext): Verdict {
  switch (answer) {
    case 'applied':
      return 'ok';
    case 'refused':
      return ctx.mayHaveApplied && !ctx.idempotent ? 'unknown' : 'failed';
    case 'malformed_success':
      return 'unknown';
    case 'exists':
      return ctx.mayHaveApplied ? 'unknown' : 'failed';
    case 'server_error':
    case 'lost_answer':
      return ctx.idempotent || ctx.mode === 'resend' ? 'retry' : 'unknown';
    case 'never_left':
    case 'throttled':
      return 'retry';
  }
}

/** Whether an answer means the request may have reached the service and been applied. */
export const mayHaveBeenApplied = (answer: AttemptAnswer): boolean =>
  answer === 'server_error' || answer === 'lost_answer' || answer === 'malformed_success';

/** Why "exists already", answered to a resend, leaves the row unknown. */
export const EXISTS_AFTER_DOUBT =
  'an earlier attempt of this row may have created it, or it was there before this run and this row never reached it: check its values in the account (a resend gets the same answer)';

/** Why a refusal of a resend leaves the row unknown. */
export const REFUSED_AFTER_DOUBT =
  'an earlier attempt of this row may have been applied, and this answer only shows that the resend was not: check the account';

/** Where a row stands in the ledger of a run (the ledger stores exactly these). */
export type RowState = 'intent' | 'ok' | 'failed' | 'unknown';

/** What a (resumed) run does with a valid row, given what the ledger knows of it. */
export type ResumeDecision =
  /** Never sent, or safe to send again: send it. */
  | { readonly kind: 'send' }
  /** It has its outcome: report that, send nothing. */
  | { readonly kind: 'report' }
  /** It may have been applied and resending could duplicate it: report `unknown`, keep the intent. */
  | { readonly kind: 'in_doubt' };

export const IN_DOUBT_MESSAGE =
  'the previous run stopped while this request was in flight; it may have been applied and was not resent to avoid a duplicate (check the account, or resume with --resend-unknown)';

/**
 * - no entry: never sent → send;
 * - ok / failed: final → report it (a failed row is fixed through the rejects file, not resent);
 * - intent (in flight at a crash): resend when the operation is idempotent or the user passed
 *   --resend-unknown; otherwise in doubt;
 * - unknown (it may have been applied): resend only with --resend-unknown.
 */
export function resumeDecision(
  state: RowState | undefined,
  idempotent: boolean,
  resendUnknown: boolean,
): ResumeDecision {
  if (state === undefined) return { kind: 'send' };
  switch (state) {
    case 'ok':
    case 'failed':
      return { kind: 'report' };
    case 'unknown':
      return resendUnknown ? { kind: 'send' } : { kind: 'report' };
    case 'intent':
      return idempotent || resendUnknown ? { kind: 'send' } : { kind: 'in_doubt' };
  }
}

/** Whether the row may already have been applied before this run sends it (a resend of a row in doubt). */
export function inDoubtBefore(state: RowState | undefined): boolean {
  return state === 'unknown' || state === 'intent';
}

/** The ledger refuses a new intent for a row in this state: it was applied, sending again would duplicate it. */
export const isApplied = (state: RowState | undefined): boolean => state === 'ok';

/** Rows of a run that a `resume --resend-unknown` would send again: in flight at a crash, or unknown. */
export const rowsInDoubt = (counts: Readonly<Record<RowState, number>>): number => counts.intent + counts.unknown;
