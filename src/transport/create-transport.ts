import { setMaxListeners } from 'node:events';
import { setTimeout as delay } from 'node:timers/promises';
import { Agent } from 'undici';
import { DEFAULTS } from '../defaults.js';
import { ConfigError, HttpError } from '../errors.js';
import { exchange, type Exchange } from './_exchange.js';
import { NOT_RESENT, REDIRECT_IN_DOUBT } from './_messages.js';
import { linkUrl, requestUrl } from './_request-url.js';
import { Breaker, type Observation } from './breaker.js';
import { classify, type Step } from './classify.js';
import { mayHaveBeenApplied, verdict, type AttemptAnswer, type InDoubtMode } from './in-doubt.js';
import { RetryBudget } from './retry-budget.js';
import { DEFAULT_RETRY_POLICY, backoffDelay, throttleFallbackDelay, type RetryPolicy } from './retry-policy.js';
import { TokenBucket } from './token-bucket.js';
import type { ApiRequest, SendOutcome, Transport, TransportEvent, TransportOptions, TransportStats } from './types.js';
import { redact } from '../text/redact.js';

/** Longest timer Node accepts (2^31 - 1 ms); a longer one fires at once, in a loop. */
const MAX_TIMER_MS = 2_147_483_647;
/** The share the pacing stays below `rate` by default (`TokenBucketOptions.headroom`). */
export const DEFAULT_HEADROOM = 0.03;
const defaultSleep = (ms: number, signal?: AbortSignal): Promise<void> =>
  delay(Math.min(ms, MAX_TIMER_MS), undefined, signal ? { signal } : {});

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

type Req = Omit<ApiRequest, 'path'>;

/** Everything fixed for the transport's life, resolved from the options once. */
interface Setup {
  readonly baseUrl: URL;
  readonly policy: RetryPolicy;
  readonly mode: InDoubtMode;
  readonly maxPauseMs: number;
  readonly now: () => number;
  readonly sleep: (ms: number, signal?: AbortSignal) => Promise<void>;
  readonly random: () => number;
  readonly fetchFn: typeof fetch;
  readonly emit: (event: TransportEvent) => void;
  readonly headers: (withBody: boolean) => Record<string, string>;
  /** The service may echo a request back; the key must never reach a report or a log. */
  readonly redact: (text: string) => string;
}

/**
 * The HTTP transport: one undici `Agent` (keep-alive, `concurrency` connections), one token
 * bucket for the whole run, 429 pauses, the retry policy and budget, and the breaker that stops a
 * run every request of which meets the same wall. What each answer means is `classify`; this is
 * only the loop around it. Everything that varies is injected; nothing is global.
 */
export function createTransport(options: TransportOptions): Transport {
  return new HttpTransport(options);
}

class HttpTransport implements Transport {
  readonly #o: Setup;
  readonly #agent: Agent;
  readonly #bucket: TokenBucket;
  readonly #budget: RetryBudget;
  readonly #breaker: Breaker;
  readonly #counters: TransportStats = { requests: 0, retries: 0, throttled: 0, lostAnswers: 0 };
  /** One signal for "send nothing more": the run's signal, close(), or a fatal answer. */
  readonly #stop = new AbortController();
  readonly #signal: AbortSignal | undefined;
  readonly #onAbort = () => this.#stop.abort();
  #fatal: HttpError | undefined;
  #closed: Promise<void> | undefined;

  constructor(options: TransportOptions) {
    this.#o = setup(options);
    const concurrency = positiveInteger('concurrency', options.concurrency ?? DEFAULTS.concurrency);
    const requestMs = options.timeouts?.requestMs ?? DEFAULTS.requestTimeoutSeconds * 1000;
    this.#agent = new Agent({
      connections: concurrency,
      connect: { timeout: options.timeouts?.connectMs ?? 10_000 },
      headersTimeout: options.timeouts?.headersMs ?? requestMs,
      bodyTimeout: options.timeouts?.bodyMs ?? requestMs,
    });
    const rate = positive('rate', options.rate ?? DEFAULTS.rate);
    this.#bucket = new TokenBucket({
      rate,
      now: this.#o.now,
      sleep: this.#o.sleep,
      headroom: options.headroom ?? DEFAULT_HEADROOM,
    });
    this.#budget = new RetryBudget(options.retryBudget);
    this.#breaker = new Breaker(options.breaker ?? {}, this.#o.now);
    // Every request waiting for its slot listens on `stop` (one listener each): with a high
    // concurrency that is more than Node's default of 10, and no leak.
    setMaxListeners(0, this.#stop.signal);
    this.#signal = options.signal;
    this.#signal?.addEventListener('abort', this.#onAbort, { once: true });
    if (this.#signal?.aborted) this.#stop.abort();
  }

  async send(req: ApiRequest): Promise<SendOutcome> {
    return this.#perform(requestUrl(this.#o.baseUrl, req.path), req, req.path);
  }

  async getJson(pathOrUrl: string): Promise<unknown> {
    const url = linkUrl(this.#o.baseUrl, pathOrUrl);
    const label = `GET ${url.pathname}${url.search}`;
    const outcome = await this.#perform(url, { method: 'GET', idempotent: true }, pathOrUrl);
    if (outcome.kind === 'ok') return outcome.body;
    const status = outcome.kind === 'not_sent' ? undefined : outcome.status;
    throw new HttpError(status === undefined ? 'NETWORK' : 'HTTP_PROTOCOL', `${label}: ${outcome.message}`, status);
  }

  stats(): TransportStats {
    return { ...this.#counters };
  }

  stopped(): HttpError | undefined {
    return this.#fatal;
  }

  close(): Promise<void> {
    this.#closed ??= (async () => {
      this.#stop.abort();
      this.#signal?.removeEventListener('abort', this.#onAbort);
      await this.#agent.close();
    })();
    return this.#closed;
  }

  /** Stops the run: nothing more is sent, and every later request hears `error`. */
  #stopRun(error: HttpError): HttpError {
    this.#fatal ??= error;
    this.#stop.abort();
    return this.#fatal;
  }

  #stoppedWhy(): string {
    return this.#signal?.aborted
      ? 'the run was interrupted'
      : this.#closed
        ? 'the transport was closed'
        : 'the run was stopped';
  }

  async #perform(url: URL, req: Req, path: string): Promise<SendOutcome> {
    if (this.#fatal) throw secondHand(this.#fatal);
    const o = this.#o;
    // A FormData (a bulk CSV upload) goes as it is: fetch writes its multipart Content-Type and boundary.
    const form = req.body instanceof FormData ? req.body : undefined;
    const body = form ?? (req.body === undefined ? undefined : JSON.stringify(req.body));
    const init = {
      method: req.method,
      headers: o.headers(body !== undefined && form === undefined),
      body,
      redirect: 'manual',
      dispatcher: this.#agent,
    } as unknown as RequestInit;
    const tries: Attempts = {
      sent: 0,
      counted: 0,
      throttles: 0,
      mayHaveApplied: false,
      inDoubtBefore: req.inDoubt === true,
      last: '',
    };
    for (;;) {
      const stopped = await this.#waitForSlot(tries);
      if (stopped) return stopped;
      if (tries.sent === 0 && req.beforeFirstAttempt !== undefined) {
        if (!(await req.beforeFirstAttempt()))
          return {
            kind: 'not_sent',
            message: 'not sent: its intent could not be recorded',
            attempts: 0,
            mayHaveApplied: false,
          };
        // The callback awaited (a ledger commit): the run may have stopped meanwhile, and then
        // this request must not leave either.
        const stoppedMeanwhile = this.#stoppedBeforeLeaving();
        if (stoppedMeanwhile) return stoppedMeanwhile;
      }
      const result = await this.#attempt(url, init, tries);
      const mayHaveApplied = tries.mayHaveApplied || tries.inDoubtBefore;
      const step = classify(result, {
        method: req.method,
        idempotent: req.idempotent,
        mode: o.mode,
        mayHaveApplied,
        exists: req.exists,
        policy: o.policy,
        baseUrl: o.baseUrl,
        maxPauseMs: o.maxPauseMs,
        now: o.now(),
        redact: o.redact,
      });
      const tripped = this.#breaker.observe(
        observation(result, step),
        step.action === 'fatal' ? step.error.message : reasonOf(step),
      );
      if (step.action !== 'fatal' && step.action !== 'pause' && mayHaveBeenApplied(step.answer))
        tries.mayHaveApplied = true;
      const next = await this.#afterStep(step, req, path, tries);
      if (tripped) this.#stopRun(tripped);
      if (next !== 'again') return next;
    }
  }

  /** Before each attempt: the slot, unless the run stopped meanwhile. Undefined: go. */
  async #waitForSlot(tries: Attempts): Promise<SendOutcome | undefined> {
    const go = await this.#bucket.take(this.#stop.signal);
    // Another request stopped the run while this one waited. This one hears that too, unless it
    // already left at least once: then it may have been applied, and the caller must hear that.
    const fatalNow = this.#fatal;
    if (fatalNow && tries.sent === 0) throw secondHand(fatalNow);
    if (fatalNow)
      return {
        kind: 'not_sent',
        message: `not sent again: ${fatalNow.message} (last: ${tries.last})`,
        attempts: tries.sent,
        mayHaveApplied: tries.mayHaveApplied,
      };
    if (go) return undefined;
    const message =
      tries.sent === 0
        ? `not sent: ${this.#stoppedWhy()}`
        : `not sent again: ${this.#stoppedWhy()} while the request waited to be resent (last: ${tries.last})`;
    return { kind: 'not_sent', message, attempts: tries.sent, mayHaveApplied: tries.mayHaveApplied };
  }

  /** A request that has its slot but has not left, when the run stopped: it hears why, and nothing leaves. */
  #stoppedBeforeLeaving(): SendOutcome | undefined {
    if (this.#fatal) throw secondHand(this.#fatal);
    if (!this.#stop.signal.aborted) return undefined;
    return { kind: 'not_sent', message: `not sent: ${this.#stoppedWhy()}`, attempts: 0, mayHaveApplied: false };
  }

  /** One round trip; an error `fetch` throws that is not a network failure may quote the key, so only a scrubbed copy goes on. */
  async #attempt(url: URL, init: RequestInit, tries: Attempts): Promise<Exchange> {
    tries.sent++;
    this.#counters.requests++;
    const result = await exchange(this.#o.fetchFn, url, init).catch((error: unknown) => {
      throw scrubbed(error, this.#o.redact);
    });
    if (result.type === 'network' && result.failure.kind === 'lost_answer') this.#counters.lostAnswers++;
    return result;
  }

  /** What the loop does with a step: an outcome, or 'again' once the wait before the next attempt is over. */
  async #afterStep(step: Step, req: Req, path: string, tries: Attempts): Promise<SendOutcome | 'again'> {
    switch (step.action) {
      case 'done':
        if (step.outcome.kind === 'ok') this.#budget.onSuccess();
        return { ...step.outcome, attempts: tries.sent };
      case 'fatal': {
        // A 429 asking for too long a pause is a 429 all the same: counted, and logged as the give-up it is.
        if (step.error.code === 'HTTP_THROTTLED') {
          this.#counters.throttled++;
          this.#o.emit({ type: 'gave_up', method: req.method, path, reason: 'pause', message: step.error.message });
        }
        const error = this.#stopRun(step.error);
        // An earlier attempt of this request may have been applied: its fate is unknown, not refused.
        if (tries.mayHaveApplied)
          return {
            kind: 'unknown',
            status: undefined,
            message: `${tries.last}, then ${error.message}; ${NOT_RESENT}`,
            attempts: tries.sent,
          };
        // This attempt reached a server that answered it: resending one that is not idempotent could duplicate it.
        if (step.reached === true && !req.idempotent)
          return {
            kind: 'unknown',
            status: step.error.status,
            message: `${error.message}; ${REDIRECT_IN_DOUBT}`,
            attempts: tries.sent,
          };
        throw error;
      }
      case 'pause':
        return this.#pause(step, req, path, tries);
      case 'retry':
        return this.#retry(step, req, path, tries);
    }
  }

  /** A 429 was not applied: wait for retry-after, then send again, without using an attempt. */
  #pause(step: Extract<Step, { action: 'pause' }>, req: Req, path: string, tries: Attempts): SendOutcome | 'again' {
    const o = this.#o;
    this.#counters.throttled++;
    tries.throttles++;
    tries.last = step.reason;
    if (tries.throttles >= o.policy.maxThrottles) {
      const message = `throttled ${tries.throttles} times (HTTP 429), gave up: ${step.reason}`;
      o.emit({ type: 'gave_up', method: req.method, path, reason: 'throttles', message });
      return this.#givenUp('throttled', 429, message, req, tries);
    }
    const waitMs = step.waitMs ?? throttleFallbackDelay(tries.throttles, o.policy);
    this.#bucket.pauseUntil(o.now() + waitMs);
    o.emit({
      type: 'throttled',
      method: req.method,
      path,
      waitMs,
      source: step.source ?? 'backoff',
      count: tries.throttles,
    });
    return 'again';
  }

  async #retry(
    step: Extract<Step, { action: 'retry' }>,
    req: Req,
    path: string,
    tries: Attempts,
  ): Promise<SendOutcome | 'again'> {
    const o = this.#o;
    tries.counted++;
    tries.last = step.reason;
    const outOfAttempts = tries.counted >= o.policy.maxAttempts;
    if (outOfAttempts || !this.#budget.tryAcquire()) {
      const why = outOfAttempts
        ? `gave up after ${tries.counted} attempts`
        : 'not retried: the retry budget of the run is spent (too many failures)';
      const message = `${step.reason} (${why})`;
      o.emit({ type: 'gave_up', method: req.method, path, reason: outOfAttempts ? 'attempts' : 'budget', message });
      return this.#givenUp(step.answer, step.status, message, req, tries);
    }
    const delayMs = backoffDelay(tries.counted, o.policy, o.random);
    this.#counters.retries++;
    o.emit({ type: 'retry', method: req.method, path, attempt: tries.counted + 1, delayMs, reason: step.reason });
    if (!this.#stop.signal.aborted) {
      try {
        await o.sleep(delayMs, this.#stop.signal);
      } catch (error) {
        if (!this.#stop.signal.aborted) throw error;
      }
    }
    return 'again';
  }

  /** A retry that cannot happen: `unknown` when an attempt may have been applied, else `not_sent` (never `failed`). */
  #givenUp(answer: AttemptAnswer, status: number | undefined, message: string, req: Req, tries: Attempts): SendOutcome {
    const v = verdict(answer, {
      idempotent: req.idempotent,
      mode: this.#o.mode,
      mayHaveApplied: tries.mayHaveApplied || tries.inDoubtBefore,
      exhausted: true,
    });
    // A read (`getJson`) changes nothing: it failed, with no advice about what it may have applied.
    if (v === 'unknown' && req.method === 'GET') return { kind: 'failed', status, message, attempts: tries.sent };
    if (v === 'unknown')
      return {
        kind: 'unknown',
        status,
        message: `${message}; the request may have been applied: check the account; if it is not there, resume --resend-unknown`,
        attempts: tries.sent,
      };
    return {
      kind: 'not_sent',
      message: `not sent: ${message}`,
      attempts: tries.sent,
      mayHaveApplied: false,
      givenUp: true,
    };
  }
}

/** The options, checked and with their defaults. */
function setup(options: TransportOptions): Setup {
  const { baseUrl, apiKey } = options;
  if (apiKey.trim() === '') throw new ConfigError('USAGE', 'the API key is empty');
  const policy: RetryPolicy = {
    ...DEFAULT_RETRY_POLICY,
    maxAttempts: positiveInteger('maxAttempts', options.maxAttempts ?? DEFAULT_RETRY_POLICY.maxAttempts),
  };
  return {
    baseUrl,
    policy,
    mode: options.inDoubt ?? DEFAULTS.inDoubt,
    maxPauseMs: positive('maxPauseMs', options.maxPauseMs ?? DEFAULTS.maxPauseSeconds * 1000),
    now: options.now ?? Date.now,
    sleep: options.sleep ?? defaultSleep,
    random: options.random ?? Math.random,
    // Read at call time, not captured: nock (tests) replaces the global fetch after import.
    fetchFn: options.fetch ?? ((input, init) => globalThis.fetch(input, init)),
    emit: (event) => options.onEvent?.(event),
    headers: (withBody) => ({
      Authorization: `Token ${apiKey}`,
      // Version 2 of the API is asked for through the Accept header.
      Accept: '*/*; version=2',
      'User-Agent': options.userAgent ?? 'engage-import',
      ...(withBody ? { 'Content-Type': 'application/json' } : {}),
    }),
    redact: (text) => redact(text, [apiKey]),
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
  return step.action !== 'fatal' && step.action !== 'pause' && step.answer === 'malformed_success'
    ? 'malformed'
    : 'answered';
}

const reasonOf = (step: Step): string =>
  step.action === 'retry' || step.action === 'pause'
    ? step.reason
    : step.action === 'done' && step.outcome.kind !== 'ok'
      ? step.outcome.message
      : '';

/**
 * The run's fatal error as a request that never left hears it: the same code and words, without
 * the HTTP status, which belongs to the request that got the answer (its report line shows it).
 */
function secondHand(fatal: HttpError): HttpError {
  return new HttpError(fatal.code, fatal.message);
}

/** A copy of an unexpected error without the key in its message, and without its cause or stack. */
function scrubbed(error: unknown, scrub: (text: string) => string): Error {
  const original = error instanceof Error ? error : new Error(String(error));
  const copy = new Error(scrub(original.message));
  copy.name = original.name;
  copy.stack = `${copy.name}: ${copy.message}\n    (stack withheld: the original may quote the API key)`;
  return copy;
}

function positive(name: string, value: number): number {
  if (!(value > 0) || !Number.isFinite(value))
    throw new ConfigError('USAGE', `${name} must be a positive number, got ${value}`);
  return value;
}

function positiveInteger(name: string, value: number): number {
  if (!Number.isInteger(value) || value < 1)
    throw new ConfigError('USAGE', `${name} must be a whole number of at least 1, got ${value}`);
  return value;
}
