import { setMaxListeners } from 'node:events';
import { setTimeout as delay } from 'node:timers/promises';
import { Agent } from 'undici';
import { ConfigError, HttpError } from '../errors.js';
import { exchange, type Exchange } from './_exchange.js';
import { NOT_RESENT } from './_messages.js';
import { linkUrl, requestUrl } from './_request-url.js';
import { Breaker, type Observation } from './breaker.js';
import { classify, type Step } from './classify.js';
import { mayHaveBeenApplied, verdict, type InDoubtMode } from './in-doubt.js';
import { RetryBudget } from './retry-budget.js';
import { DEFAULT_RETRY_POLICY, backoffDelay, throttleFallbackDelay, type RetryPolicy } from './retry-policy.js';
import { TokenBucket } from './token-bucket.js';
import type { ApiRequest, SendOutcome, Transport, TransportEvent, TransportOptions, TransportStats } from './types.js';

/** Longest timer Node accepts (2^31 - 1 ms); a longer one fires at once, in a loop. */
const MAX_TIMER_MS = 2_147_483_647;
const defaultSleep = (ms: number, signal?: AbortSignal): Promise<void> => delay(Math.min(ms, MAX_TIMER_MS), undefined, signal ? { signal } : {});

/** What one request has been through so far, across its attempts. */
interface Attempts {
  sent: number;
  /** Attempts that count against maxAttempts: 429 answers do not. */
  counted: number;
  throttles: number;
  /** An attempt of this run got a 5xx, lost its answer or got a malformed 2xx. */
  mayHaveApplied: boolean;
  /** The row was in doubt before this run (a resend with --resend-unknown). */
  readonly inDoubtBefore: boolean;
  last: string;
}

/**
 * The HTTP transport: one undici `Agent` (keep-alive, `concurrency` connections), one token
 * bucket for the whole run, 429 pauses, the retry policy and budget, and the breaker that stops a
 * run every request of which meets the same wall. What each answer means is `classify`; this is
 * only the loop around it. Everything that varies is injected; nothing is global.
 */
export function createTransport(options: TransportOptions): Transport {
  const { baseUrl, apiKey } = options;
  const rate = positive('rate', options.rate ?? 10);
  const concurrency = positiveInteger('concurrency', options.concurrency ?? 4);
  const policy: RetryPolicy = { ...DEFAULT_RETRY_POLICY, maxAttempts: positiveInteger('maxAttempts', options.maxAttempts ?? DEFAULT_RETRY_POLICY.maxAttempts) };
  const mode: InDoubtMode = options.inDoubt ?? 'unknown';
  const maxPauseMs = positive('maxPauseMs', options.maxPauseMs ?? 300_000);
  if (apiKey.trim() === '') throw new ConfigError('USAGE', 'the API key is empty');
  const now = options.now ?? Date.now;
  const sleep = options.sleep ?? defaultSleep;
  const random = options.random ?? Math.random;
  // Read at call time, not captured: nock (tests) replaces the global fetch after import.
  const fetchFn: typeof fetch = options.fetch ?? ((input, init) => globalThis.fetch(input, init));
  const emit = (event: TransportEvent) => options.onEvent?.(event);

  const requestMs = options.timeouts?.requestMs ?? 30_000;
  const agent = new Agent({
    connections: concurrency,
    connect: { timeout: options.timeouts?.connectMs ?? 10_000 },
    headersTimeout: options.timeouts?.headersMs ?? requestMs,
    bodyTimeout: options.timeouts?.bodyMs ?? requestMs,
  });
  const bucket = new TokenBucket({ rate, now, sleep, headroom: options.headroom ?? 0.03 });
  const budget = new RetryBudget(options.retryBudget);
  const breaker = new Breaker(options.breaker ?? {}, now);
  const counters: TransportStats = { requests: 0, retries: 0, throttled: 0, lostAnswers: 0 };

  // One signal for "send nothing more": the run's signal, close(), or a fatal answer.
  const stop = new AbortController();
  const onAbort = () => stop.abort();
  // Every request waiting for its slot listens on `stop` (one listener each): with a high
  // concurrency that is more than Node's default of 10, and no leak.
  setMaxListeners(0, stop.signal);
  options.signal?.addEventListener('abort', onAbort, { once: true });
  if (options.signal?.aborted) stop.abort();
  let fatal: HttpError | undefined;
  let closed: Promise<void> | undefined;

  // The service may echo a request back; the key must never reach a report or a log.
  const redact = (text: string) => text.split(apiKey).join('[redacted]');
  /** Stops the run: nothing more is sent, and every later request hears `error`. */
  const stopRun = (error: HttpError): HttpError => {
    fatal ??= error;
    stop.abort();
    return fatal;
  };
  const stoppedWhy = () => (options.signal?.aborted ? 'the run was interrupted' : closed ? 'the transport was closed' : 'the run was stopped');

  const headers = (withBody: boolean): Record<string, string> => ({
    Authorization: `Token ${apiKey}`,
    // Version 2 of the API is asked for through the Accept header.
    Accept: '*/*; version=2',
    'User-Agent': options.userAgent ?? 'engage-import',
    ...(withBody ? { 'Content-Type': 'application/json' } : {}),
  });

  /** One round trip; an error `fetch` throws that is not a network failure may quote the key, so only a scrubbed copy goes on. */
  async function attempt(url: URL, init: RequestInit, tries: Attempts): Promise<Exchange> {
    tries.sent++;
    counters.requests++;
    const result = await exchange(fetchFn, url, init).catch((error: unknown) => {
      throw scrubbed(error, redact);
    });
    if (result.type === 'network' && result.failure.kind === 'lost_answer') counters.lostAnswers++;
    return result;
  }

  /** Before each attempt: the slot, unless the run stopped meanwhile. Undefined: go. */
  async function waitForSlot(tries: Attempts): Promise<SendOutcome | undefined> {
    const go = await bucket.take(stop.signal);
    // Another request stopped the run while this one waited. This one hears that too, unless it
    // already left at least once: then it may have been applied, and the caller must hear that.
    const fatalNow = fatal as HttpError | undefined;
    if (fatalNow && tries.sent === 0) throw secondHand(fatalNow);
    if (fatalNow) return { kind: 'not_sent', message: `not sent again: ${fatalNow.message} (last: ${tries.last})`, attempts: tries.sent, mayHaveApplied: tries.mayHaveApplied };
    if (go) return undefined;
    const message = tries.sent === 0 ? `not sent: ${stoppedWhy()}` : `not sent again: ${stoppedWhy()} while the request waited to be resent (last: ${tries.last})`;
    return { kind: 'not_sent', message, attempts: tries.sent, mayHaveApplied: tries.mayHaveApplied };
  }

  async function perform(url: URL, req: Omit<ApiRequest, 'path'>, path: string): Promise<SendOutcome> {
    if (fatal) throw secondHand(fatal);
    const body = req.body === undefined ? undefined : JSON.stringify(req.body);
    const init = { method: req.method, headers: headers(body !== undefined), body, redirect: 'manual', dispatcher: agent } as unknown as RequestInit;
    const tries: Attempts = { sent: 0, counted: 0, throttles: 0, mayHaveApplied: false, inDoubtBefore: req.inDoubt === true, last: '' };
    for (;;) {
      const stopped = await waitForSlot(tries);
      if (stopped) return stopped;
      const result = await attempt(url, init, tries);
      const step = classify(result, { method: req.method, idempotent: req.idempotent, mode, mayHaveApplied: tries.mayHaveApplied || tries.inDoubtBefore, exists: req.exists, policy, baseUrl, maxPauseMs, now: now(), redact });
      const tripped = breaker.observe(observation(result, step), step.action === 'fatal' ? step.error.message : reasonOf(step));
      if (step.action !== 'fatal' && step.action !== 'pause' && mayHaveBeenApplied(step.answer)) tries.mayHaveApplied = true;
      const next = await afterStep(step, req, path, tries);
      if (tripped) stopRun(tripped);
      if (next !== 'again') return next;
    }
  }

  /** What the loop does with a step: an outcome, or 'again' once the wait before the next attempt is over. */
  async function afterStep(step: Step, req: Omit<ApiRequest, 'path'>, path: string, tries: Attempts): Promise<SendOutcome | 'again'> {
    switch (step.action) {
      case 'done':
        if (step.outcome.kind === 'ok') budget.onSuccess();
        return { ...step.outcome, attempts: tries.sent } as SendOutcome;
      case 'fatal': {
        const error = stopRun(step.error);
        // An earlier attempt of this request may have been applied: its fate is unknown, not refused.
        if (tries.mayHaveApplied) return { kind: 'unknown', status: undefined, message: `${tries.last}, then ${error.message}; ${NOT_RESENT}`, attempts: tries.sent };
        throw error;
      }
      case 'pause':
        return pause(step, req, path, tries);
      case 'retry':
        return retry(step, req, path, tries);
    }
  }

  function pause(step: Extract<Step, { action: 'pause' }>, req: Omit<ApiRequest, 'path'>, path: string, tries: Attempts): SendOutcome | 'again' {
    // A 429 was not applied: wait for retry-after, then send again, without using an attempt.
    counters.throttled++;
    tries.throttles++;
    tries.last = step.reason;
    if (tries.throttles >= policy.maxThrottles) {
      const message = `throttled ${tries.throttles} times (HTTP 429), gave up: ${step.reason}`;
      emit({ type: 'gave_up', method: req.method, path, reason: 'throttles', message });
      return givenUp('throttled', 429, message, req, tries);
    }
    const waitMs = step.waitMs ?? throttleFallbackDelay(tries.throttles, policy);
    bucket.pauseUntil(now() + waitMs);
    emit({ type: 'throttled', method: req.method, path, waitMs, source: step.source ?? 'backoff', count: tries.throttles });
    return 'again';
  }

  async function retry(step: Extract<Step, { action: 'retry' }>, req: Omit<ApiRequest, 'path'>, path: string, tries: Attempts): Promise<SendOutcome | 'again'> {
    tries.counted++;
    tries.last = step.reason;
    const outOfAttempts = tries.counted >= policy.maxAttempts;
    if (outOfAttempts || !budget.tryAcquire()) {
      const why = outOfAttempts ? `gave up after ${tries.counted} attempts` : 'not retried: the retry budget of the run is spent (too many failures)';
      const message = `${step.reason} (${why})`;
      emit({ type: 'gave_up', method: req.method, path, reason: outOfAttempts ? 'attempts' : 'budget', message });
      return givenUp(step.answer, step.status, message, req, tries);
    }
    const delayMs = backoffDelay(tries.counted, policy, random);
    counters.retries++;
    emit({ type: 'retry', method: req.method, path, attempt: tries.counted + 1, delayMs, reason: step.reason });
    if (!stop.signal.aborted) {
      try {
        await sleep(delayMs, stop.signal);
      } catch (error) {
        if (!stop.signal.aborted) throw error;
      }
    }
    return 'again';
  }

  /** A retry that cannot happen: `unknown` when an attempt may have been applied, else `not_sent` (never `failed`). */
  function givenUp(answer: Parameters<typeof verdict>[0], status: number | undefined, message: string, req: Omit<ApiRequest, 'path'>, tries: Attempts): SendOutcome {
    const v = verdict(answer, { idempotent: req.idempotent, mode, mayHaveApplied: tries.mayHaveApplied || tries.inDoubtBefore, exhausted: true });
    if (v === 'unknown') return { kind: 'unknown', status, message: `${message}; the request may have been applied: check the account; if it is not there, resume --resend-unknown`, attempts: tries.sent };
    return { kind: 'not_sent', message: `not sent: ${message}`, attempts: tries.sent, mayHaveApplied: false };
  }

  return {
    send: async (req) => perform(requestUrl(baseUrl, req.path), req, req.path),
    async getJson(pathOrUrl) {
      const url = linkUrl(baseUrl, pathOrUrl);
      const label = `GET ${url.pathname}${url.search}`;
      const outcome = await perform(url, { method: 'GET', idempotent: true }, pathOrUrl);
      if (outcome.kind === 'ok') return outcome.body;
      const status = outcome.kind === 'not_sent' ? undefined : outcome.status;
      throw new HttpError(status === undefined ? 'NETWORK' : 'HTTP_PROTOCOL', `${label}: ${outcome.message}`, status);
    },
    stats: () => ({ ...counters }),
    stopped: () => fatal,
    close() {
      closed ??= (async () => {
        stop.abort();
        options.signal?.removeEventListener('abort', onAbort);
        await agent.close();
      })();
      return closed;
    },
  };
}

const TIMEOUT_CODES = new Set(['UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT', 'ETIMEDOUT']);

/** How the breaker sees one attempt. */
function observation(result: Exchange, step: Step): Observation {
  if (result.type === 'network') {
    if (result.failure.kind === 'before_sent') return 'never_left';
    return TIMEOUT_CODES.has(result.failure.code) ? 'timeout' : 'lost';
  }
  if (result.bodyLost && TIMEOUT_CODES.has(result.bodyLost.code)) return 'timeout';
  return step.action !== 'fatal' && step.action !== 'pause' && step.answer === 'malformed_success' ? 'malformed' : 'answered';
}

const reasonOf = (step: Step): string => (step.action === 'retry' || step.action === 'pause' ? step.reason : step.action === 'done' && step.outcome.kind !== 'ok' ? step.outcome.message : '');

/**
 * The run's fatal error as a request that never left hears it: the same code and words, without
 * the HTTP status, which belongs to the request that got the answer (its report line shows it).
 */
function secondHand(fatal: HttpError): HttpError {
  return new HttpError(fatal.code, fatal.message);
}

/** A copy of an unexpected error without the key in its message, and without its cause or stack. */
function scrubbed(error: unknown, redact: (text: string) => string): Error {
  const original = error instanceof Error ? error : new Error(String(error));
  const copy = new Error(redact(original.message));
  copy.name = original.name;
  copy.stack = `${copy.name}: ${copy.message}\n    (stack withheld: the original may quote the API key)`;
  return copy;
}

function positive(name: string, value: number): number {
  if (!(value > 0) || !Number.isFinite(value)) throw new ConfigError('USAGE', `${name} must be a positive number, got ${value}`);
  return value;
}

function positiveInteger(name: string, value: number): number {
  if (!Number.isInteger(value) || value < 1) throw new ConfigError('USAGE', `${name} must be a whole number of at least 1, got ${value}`);
  return value;
}
