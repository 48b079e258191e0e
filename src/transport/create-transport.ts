import { setMaxListeners } from 'node:events';
import { setTimeout as delay } from 'node:timers/promises';
import { Agent } from 'undici';
import { ConfigError, HttpError } from '../errors.js';
import { exchange } from './_exchange.js';
import { NOT_RESENT, UNAUTHORIZED, networkMessage, redirectMessage, tlsMessage } from './_messages.js';
import { linkUrl, requestUrl } from './_request-url.js';
import { errorMessage } from './error-body.js';
import { RetryBudget } from './retry-budget.js';
import { throttleWait } from './retry-after.js';
import { DEFAULT_RETRY_POLICY, backoffDelay, decide, givenUpAs, throttleFallbackDelay, type AttemptFailure, type RetryPolicy } from './retry-policy.js';
import { TokenBucket } from './token-bucket.js';
import type { ApiRequest, SendOutcome, Transport, TransportEvent, TransportOptions, TransportStats } from './types.js';

const defaultSleep = (ms: number, signal?: AbortSignal): Promise<void> => delay(ms, undefined, signal ? { signal } : {});

/**
 * The HTTP transport (api.md §5, §7, §8): one undici `Agent` (keep-alive, `concurrency`
 * connections), one token bucket for the whole run, 429 pauses, the retry policy and budget.
 * Everything that varies is injected (CONVENTIONS: ofetch `createFetch`); nothing is global.
 */
export function createTransport(options: TransportOptions): Transport {
  const { baseUrl, apiKey } = options;
  const rate = positive('rate', options.rate ?? 10);
  const concurrency = positiveInteger('concurrency', options.concurrency ?? 4);
  const policy: RetryPolicy = { ...DEFAULT_RETRY_POLICY, maxAttempts: positiveInteger('maxAttempts', options.maxAttempts ?? DEFAULT_RETRY_POLICY.maxAttempts) };
  const mode = options.unsafeRetries ?? 'safe';
  if (apiKey.trim() === '') throw new ConfigError('USAGE', 'the API key is empty');
  const now = options.now ?? Date.now;
  const sleep = options.sleep ?? defaultSleep;
  const random = options.random ?? Math.random;
  // Read at call time, not captured: nock (tests) replaces the global fetch after import.
  const fetchFn: typeof fetch = options.fetch ?? ((input, init) => globalThis.fetch(input, init));
  const emit = (event: TransportEvent) => options.onEvent?.(event);

  const agent = new Agent({
    connections: concurrency,
    connect: { timeout: options.timeouts?.connectMs ?? 10_000 },
    headersTimeout: options.timeouts?.headersMs ?? 30_000,
    bodyTimeout: options.timeouts?.bodyMs ?? 30_000,
  });
  const bucket = new TokenBucket({ rate, now, sleep, headroom: options.headroom ?? 0.03 });
  const budget = new RetryBudget(options.retryBudget);
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

  // The service may echo a request back; the key must never reach a report or a log (issue 4).
  const redact = (text: string) => text.split(apiKey).join('[redacted]');
  const fail = (error: HttpError): never => {
    fatal ??= error;
    stop.abort();
    throw fatal;
  };
  const stoppedWhy = () => (options.signal?.aborted ? 'the run was interrupted' : closed ? 'the transport was closed' : 'the run was stopped');

  const headers = (withBody: boolean): Record<string, string> => ({
    Authorization: `Token ${apiKey}`, // api.md §5
    Accept: '*/*; version=2', // api.md §9
    'User-Agent': options.userAgent ?? 'engage-import',
    ...(withBody ? { 'Content-Type': 'application/json' } : {}), // api.md §4
  });

  async function perform(url: URL, req: Pick<ApiRequest, 'method' | 'body' | 'idempotent'>, path: string): Promise<SendOutcome> {
    if (fatal) throw secondHand(fatal);
    // A FormData (a bulk CSV upload) goes as it is: fetch writes its multipart Content-Type and boundary.
    const form = req.body instanceof FormData ? req.body : undefined;
    const body = form ?? (req.body === undefined ? undefined : JSON.stringify(req.body));
    const init = { method: req.method, headers: headers(body !== undefined && form === undefined), body, redirect: 'manual', dispatcher: agent } as unknown as RequestInit;
    let sent = 0;
    let counted = 0; // attempts that count against maxAttempts: 429 answers do not
    let throttles = 0;
    let mayHaveApplied = false; // an attempt got a 5xx or lost its answer
    let last = '';
    for (;;) {
      const go = await bucket.take(stop.signal);
      // Another request met a fatal answer. This one throws it too, unless it already left at
      // least once: then it may have been applied, and the caller must hear that, not "refused".
      const fatalNow = fatal as HttpError | undefined; // set by other requests while this one waited
      if (fatalNow && sent === 0) throw secondHand(fatalNow);
      if (fatalNow) return { kind: 'not_sent', message: `not sent again: ${fatalNow.message} (last: ${last})`, attempts: sent, mayHaveApplied };
      if (!go) {
        const message = sent === 0 ? `not sent: ${stoppedWhy()}` : `not sent again: ${stoppedWhy()} while the request waited to be resent (last: ${last})`;
        return { kind: 'not_sent', message, attempts: sent, mayHaveApplied };
      }
      sent++;
      counters.requests++;
      const result = await exchange(fetchFn, url, init).catch((error: unknown) => {
        // Not a network failure: a bug, or a header fetch refused. Its message may quote the
        // Authorization header, so only a scrubbed copy goes on (issue 4: the key never reaches
        // a report or a log).
        throw scrubbed(error, redact);
      });
      let failure: AttemptFailure;
      let status: number | undefined;
      if (result.type === 'network') {
        if (result.failure.kind === 'tls') return fail(new HttpError('NETWORK', tlsMessage(result.failure)));
        if (result.failure.kind === 'lost_answer') {
          counters.lostAnswers++;
          mayHaveApplied = true;
        }
        failure = { type: 'network', kind: result.failure.kind };
        last = networkMessage(result.failure);
      } else {
        status = result.status;
        if (status >= 200 && status < 300) {
          budget.onSuccess();
          // A 2xx whose body broke off was applied all the same: ok, without the body.
          const parsed = result.bodyLost ? undefined : parseBody(result.text);
          return { kind: 'ok', status, body: parsed, id: idOf(parsed), attempts: sent };
        }
        // api.md §7.1 "401: check the API key": no row can succeed, so the run stops.
        if (status === 401) return fail(new HttpError('HTTP_UNAUTHORIZED', UNAUTHORIZED, 401));
        // Not followed: a redirect means a wrong base URL, and it could carry the key elsewhere.
        if (status >= 300 && status < 400) return fail(new HttpError('HTTP_PROTOCOL', redact(redirectMessage(status, result.headers.get('location'), baseUrl)), status));
        if (status === 429) {
          // api.md §8: pause everything for retry-after, then send again; not the row's failure.
          counters.throttled++;
          throttles++;
          const asked = throttleWait(result.headers, result.text, now());
          last = redact(errorMessage(429, result.text));
          if (throttles >= policy.maxThrottles) {
            const message = redact(`throttled ${throttles} times (HTTP 429), gave up: ${errorMessage(429, result.text)}`);
            emit({ type: 'gave_up', method: req.method, path, reason: 'throttles', message });
            return { kind: 'failed', status, message, attempts: sent };
          }
          const waitMs = asked?.ms ?? throttleFallbackDelay(throttles, policy);
          bucket.pauseUntil(now() + waitMs);
          emit({ type: 'throttled', method: req.method, path, waitMs, source: asked?.source ?? 'backoff', count: throttles });
          continue;
        }
        failure = { type: 'status', status };
        if (status >= 500) mayHaveApplied = true;
        last = redact(errorMessage(status, result.text));
      }
      counted++;
      const decision = decide(failure, req.idempotent, mode, policy);
      if (decision === 'fail') return { kind: 'failed', status, message: last, attempts: sent };
      if (decision === 'unknown') return { kind: 'unknown', status, message: `${last}; ${NOT_RESENT}`, attempts: sent };
      if (counted >= policy.maxAttempts || !budget.tryAcquire()) {
        const reason = counted >= policy.maxAttempts ? 'attempts' : 'budget';
        const why = reason === 'attempts' ? `gave up after ${counted} attempts` : 'not retried: the retry budget of the run is spent (too many failures)';
        const kind = givenUpAs(failure);
        const message = kind === 'unknown' ? `${last} (${why}); the request may have been applied` : `${last} (${why})`;
        emit({ type: 'gave_up', method: req.method, path, reason, message });
        return { kind, status, message, attempts: sent };
      }
      const delayMs = backoffDelay(counted, policy, random);
      counters.retries++;
      emit({ type: 'retry', method: req.method, path, attempt: counted + 1, delayMs, reason: last });
      if (!stop.signal.aborted) {
        try {
          await sleep(delayMs, stop.signal);
        } catch (error) {
          if (!stop.signal.aborted) throw error;
        }
      }
    }
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

/** A 2xx body: JSON when it parses, the raw text when it does not, undefined when empty. */
function parseBody(text: string): unknown {
  if (text.trim() === '') return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

function idOf(body: unknown): string | undefined {
  if (body === null || typeof body !== 'object' || !('id' in body)) return undefined;
  const id = body.id;
  return typeof id === 'number' || typeof id === 'string' ? String(id) : undefined;
}

function positive(name: string, value: number): number {
  if (!(value > 0) || !Number.isFinite(value)) throw new ConfigError('USAGE', `${name} must be a positive number, got ${value}`);
  return value;
}

function positiveInteger(name: string, value: number): number {
  if (!Number.isInteger(value) || value < 1) throw new ConfigError('USAGE', `${name} must be a whole number of at least 1, got ${value}`);
  return value;
}
