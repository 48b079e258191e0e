import { HttpError, type RowFailure } from '../errors.js';
import type { Exchange } from './_exchange.js';
import { NOT_RESENT, UNAUTHORIZED, networkMessage, redirectMessage, tlsMessage } from './_messages.js';
import { errorMessage } from './error-body.js';
import { EXISTS_AFTER_DOUBT, REFUSED_AFTER_DOUBT, verdict, type AttemptAnswer, type InDoubtMode } from './in-doubt.js';
import { throttleWait } from './retry-after.js';
import type { RetryPolicy } from './retry-policy.js';

/** What the retry loop does after one attempt. */
export type Step =
  /** The row's fate is known. */
  | { readonly action: 'done'; readonly answer: AttemptAnswer; readonly outcome: DoneOutcome }
  /** Send it again after a backoff, if attempts and the retry budget allow. */
  | {
      readonly action: 'retry';
      readonly answer: AttemptAnswer;
      readonly status: number | undefined;
      readonly reason: string;
    }
  /** 429: the whole transport pauses `waitMs` (undefined: the service named no wait), then sends it again. */
  | {
      readonly action: 'pause';
      readonly waitMs: number | undefined;
      readonly source: 'retry-after' | 'detail' | undefined;
      readonly reason: string;
    }
  /**
   * No row can get past this (401, a redirect, a refused certificate, a pause too long to wait):
   * stop the run. `reached`: a server took the whole request and answered it (a redirect), so it
   * may have been applied before the answer.
   */
  | { readonly action: 'fatal'; readonly error: HttpError; readonly reached?: true };

export type DoneOutcome =
  | {
      readonly kind: 'ok';
      readonly status: number;
      readonly body: unknown;
      readonly id: string | undefined;
      readonly message?: string;
    }
  | (RowFailure<'failed' | 'unknown'> & { readonly status: number | undefined });

export interface ClassifyContext {
  readonly method: string;
  readonly idempotent: boolean;
  readonly mode: InDoubtMode;
  /** An earlier attempt of this row may have been applied. */
  readonly mayHaveApplied: boolean;
  /** Recognises "this key exists already" on a create whose key is unique. */
  readonly exists: ((status: number, text: string) => boolean) | undefined;
  readonly policy: RetryPolicy;
  readonly baseUrl: URL;
  /** Longest pause a 429 may ask for; longer stops the run. */
  readonly maxPauseMs: number;
  readonly now: number;
  readonly redact: (text: string) => string;
}

/**
 * One attempt's answer → what to do next. Pure: the loop in `createTransport` owns the clock,
 * the bucket, the budget and the counters; the rule for rows in doubt is `verdict`.
 */
export function classify(result: Exchange, ctx: ClassifyContext): Step {
  if (result.type === 'network') {
    const failure = result.failure;
    if (failure.kind === 'tls') return { action: 'fatal', error: new HttpError('NETWORK', tlsMessage(failure)) };
    const answer: AttemptAnswer = failure.kind === 'before_sent' ? 'never_left' : 'lost_answer';
    return decided(answer, undefined, networkMessage(failure), ctx);
  }
  const { status } = result;
  // An answer's words reach reports and ledgers (a bulk import's failed rows, a 2xx's own
  // message), so the key is taken out of the text before anything reads it.
  const text = ctx.redact(result.text);
  if (status >= 200 && status < 300) {
    const body = result.bodyLost ? undefined : parseJson(text);
    if (isObject(body))
      return { action: 'done', answer: 'applied', outcome: { kind: 'ok', status, body, id: idOf(body) } };
    // A read changes nothing: its caller checks the shape of what it asked for.
    if (ctx.method === 'GET')
      return {
        action: 'done',
        answer: 'applied',
        outcome: { kind: 'ok', status, body: result.bodyLost ? undefined : rawBody(text), id: undefined },
      };
    const what = result.bodyLost ? 'its body broke off' : describeBody(text);
    return decided(
      'malformed_success',
      status,
      `HTTP ${status} but the answer is not the JSON object the API sends (${what}): is the base URL the API root?`,
      ctx,
    );
  }
  if (status === 401) return { action: 'fatal', error: new HttpError('HTTP_UNAUTHORIZED', UNAUTHORIZED, 401) };
  // Not followed: a redirect means a wrong base URL, and it could carry the key elsewhere. But a
  // server read the request before it answered (a 303 even says it was processed).
  if (status >= 300 && status < 400)
    return {
      action: 'fatal',
      reached: true,
      error: new HttpError(
        'HTTP_PROTOCOL',
        ctx.redact(redirectMessage(status, result.headers.get('location'), ctx.baseUrl)),
        status,
      ),
    };
  const message = ctx.redact(errorMessage(status, text));
  if (status === 429) return throttled(result.headers, text, message, ctx);
  // Any other 5xx may come after the write: a gateway's 502 or 524 says nothing of what the service
  // behind it did. Only 501 and 505 say the request was not handled at all.
  if (status >= 500 && status !== 501 && status !== 505) return decided('server_error', status, message, ctx);
  if (ctx.exists?.(status, text) === true) return decided('exists', status, message, ctx);
  // 400, 404, the other 4xx, 501 and 505: "fix the request; do not retry unchanged".
  return decided('refused', status, message, ctx);
}

function throttled(headers: Headers, text: string, message: string, ctx: ClassifyContext): Step {
  const asked = throttleWait(headers, text, ctx.now);
  if (asked !== undefined && asked.ms > ctx.maxPauseMs) {
    const error = new HttpError(
      'HTTP_THROTTLED',
      `the API asked to pause ${seconds(asked.ms)} (HTTP 429, ${asked.source}), longer than the longest pause allowed (--max-pause ${asGiven(ctx.maxPauseMs)}); the run stopped`,
      429,
    );
    return { action: 'fatal', error };
  }
  return { action: 'pause', waitMs: asked?.ms, source: asked?.source, reason: message };
}

/** The rule's verdict for an answer that is not (yet) exhausted. */
function decided(answer: AttemptAnswer, status: number | undefined, message: string, ctx: ClassifyContext): Step {
  const v = verdict(answer, {
    idempotent: ctx.idempotent,
    mode: ctx.mode,
    mayHaveApplied: ctx.mayHaveApplied,
    exhausted: false,
  });
  switch (v) {
    case 'retry':
      return { action: 'retry', answer, status, reason: message };
    case 'ok':
      // Only a 2xx with the endpoint's JSON is applied, and `classify` settles that itself.
      throw new Error(`the in-doubt rule called a ${answer} answer applied`);
    case 'failed':
      return { action: 'done', answer, outcome: { kind: 'failed', status, message } };
    case 'unknown': {
      const why = answer === 'exists' ? EXISTS_AFTER_DOUBT : answer === 'refused' ? REFUSED_AFTER_DOUBT : NOT_RESENT;
      return { action: 'done', answer, outcome: { kind: 'unknown', status, message: `${message}; ${why}` } };
    }
    case 'not_sent':
      // Only an exhausted retry ends `not_sent`; the loop handles that.
      return { action: 'retry', answer, status, reason: message };
  }
}

const seconds = (ms: number) => `${Math.round(ms / 1000)} s`;
/** An option as the user gave it (`300 s`, `0.5 s`), never rounded to a second it was not. */
const asGiven = (ms: number) => `${Number((ms / 1000).toFixed(3))} s`;

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

/** JSON when it parses, the raw text when it does not, undefined when empty. */
function rawBody(text: string): unknown {
  if (text.trim() === '') return undefined;
  const parsed = parseJson(text);
  return parsed === undefined ? text : parsed;
}

const isObject = (body: unknown): body is Record<string, unknown> =>
  body !== null && typeof body === 'object' && !Array.isArray(body);

function describeBody(text: string): string {
  if (text.trim() === '') return 'an empty body';
  const parsed = parseJson(text);
  if (Array.isArray(parsed)) return 'a JSON array';
  if (parsed !== undefined) return `JSON ${parsed === null ? 'null' : typeof parsed}`;
  if (/^\s*</.test(text)) return 'an HTML page';
  return 'text that is not JSON';
}

function idOf(body: Record<string, unknown>): string | undefined {
  const id = body.id;
  return typeof id === 'number' || typeof id === 'string' ? String(id) : undefined;
}
