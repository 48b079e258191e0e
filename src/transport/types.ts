import type { HttpError, RowFailure } from '../errors.js';
import type { BreakerOptions } from './breaker.js';
import type { InDoubtMode } from './in-doubt.js';
import type { RetryBudgetOptions } from './retry-budget.js';

/** One API call, as the pipeline asks for it. */
export interface ApiRequest {
  readonly method: 'GET' | 'POST' | 'PATCH' | 'PUT';
  /** Relative to the base URL, no leading slash, ending with `/`: `events/`, `deals/12/`. */
  readonly path: string;
  /** Sent as JSON when defined; a `FormData` is sent as `multipart/form-data` as it is (bulk CSV uploads). */
  readonly body?: unknown;
  /** True when sending it twice has the effect of sending it once (an update, or an update_or_create matched on its key). */
  readonly idempotent: boolean;
  /** An earlier attempt of this row, in a run before this one, may have been applied (a resend of a row in doubt). */
  readonly inDoubt?: boolean | undefined;
  /**
   * Recognises the answer "this key exists already" to a create: the row is `failed` (the key was
   * taken), or `unknown` when an earlier attempt of the row may have been applied (that attempt's
   * create, or a record that was there before: the answer cannot tell).
   */
  readonly exists?: ((status: number, bodyText: string) => boolean) | undefined;
  /**
   * Called once, when the request has its rate-limit slot and is about to leave for the first
   * time (the run ledger commits the row's intent here, so a crash while rows wait for their slot
   * leaves them provably unsent). Answering false keeps the request from leaving: it is `not_sent`.
   */
  readonly beforeFirstAttempt?: (() => Promise<boolean>) | undefined;
}

/**
 * What became of one request. `attempts` counts every time it was sent, 429 answers included.
 * Its failures are `RowFailure`s (src/errors.ts), with `status` the last answer's HTTP status.
 * - `ok`: 2xx with a JSON object `body`; `id` is `body.id` as a string when present.
 * - `failed`: the service refused it (4xx); not applied.
 * - `unknown`: it may have been applied (a 5xx, a lost answer, a 2xx that is not the API's
 *   answer, a redirect to a request that is not idempotent) and was not resent, or was given up
 *   or refused after such an attempt; see `verdict`.
 * - `not_sent`: the signal aborted (or the transport closed, or the run stopped) before it was
 *   sent, or while it waited to be sent again; or every attempt never left or was answered 429. `mayHaveApplied`: an earlier attempt of it got
 *   a 5xx or lost its answer, so it may exist already; false when every attempt was answered 429
 *   or never left (connection refused), which the service certainly did not apply.
 */
export type SendOutcome =
  | {
      readonly kind: 'ok';
      readonly status: number;
      readonly body: unknown;
      readonly id: string | undefined;
      readonly attempts: number;
      readonly message?: string;
    }
  | (RowFailure<'failed' | 'unknown'> & { readonly status: number | undefined; readonly attempts: number })
  | (RowFailure<'not_sent'> & {
      readonly attempts: number;
      readonly mayHaveApplied: boolean;
      /** Given up while the run goes on (429s that never ended, attempts that never reached the API), not stopped with the run. */
      readonly givenUp?: true;
    });

/** Counters since the transport was created (the pipeline subtracts two readings per stage). */
export interface TransportStats {
  /** HTTP requests sent, every attempt and every 429'd one included. */
  requests: number;
  /** Requests sent again after a 5xx or a network failure (not after a 429). */
  retries: number;
  /** 429 answers. */
  throttled: number;
  /** Attempts whose answer was lost (connection closed, headers/body timeout). */
  lostAnswers: number;
}

/** Reported as it happens, for the log; never contains the API key. */
export type TransportEvent =
  | {
      readonly type: 'throttled';
      readonly method: string;
      readonly path: string;
      /** The pause of the whole transport. */
      readonly waitMs: number;
      /** Where the wait came from: the header, the detail text, or the fallback backoff. */
      readonly source: 'retry-after' | 'detail' | 'backoff';
      /** 429s this request has had so far. */
      readonly count: number;
    }
  | {
      readonly type: 'retry';
      readonly method: string;
      readonly path: string;
      /** The attempt about to be made (2 for the first retry). */
      readonly attempt: number;
      readonly delayMs: number;
      readonly reason: string;
    }
  | {
      readonly type: 'gave_up';
      readonly method: string;
      readonly path: string;
      /** `pause`: a 429 asked to wait longer than the longest pause allowed (the run stops). */
      readonly reason: 'attempts' | 'budget' | 'throttles' | 'pause';
      readonly message: string;
    };

/**
 * The pipeline's view of HTTP. `send` never throws for a row's fate (that is the outcome); it
 * throws `HttpError` for conditions no row can get past: 401 (`HTTP_UNAUTHORIZED`), a redirect
 * (`HTTP_PROTOCOL`), a refused TLS certificate (`NETWORK`). After one of those, every later call
 * throws the same error without sending. Errors that are bugs (an unserialisable body, an
 * invalid path) are thrown as they are.
 */
export interface Transport {
  send(req: ApiRequest): Promise<SendOutcome>;
  /**
   * GET of a path relative to the base URL, or of a full URL on the base URL's origin (a
   * pagination `next` link); the parsed body of a 2xx. Throws `HttpError` when the outcome is
   * not `ok` (`HTTP_PROTOCOL` with the status, or `NETWORK` when there is none), and for a URL on
   * another origin (the API key is never sent elsewhere).
   */
  getJson(pathOrUrl: string): Promise<unknown>;
  stats(): TransportStats;
  /** The error that stopped the run (401, a breaker, a pause too long), once one did: nothing more is sent. */
  stopped(): HttpError | undefined;
  /** Requests not yet sent end as `not_sent`, pauses end; waits for in-flight requests, then closes the connections. */
  close(): Promise<void>;
}

export interface TransportTimeouts {
  /** To establish a connection (TCP + TLS). Default 10 000. */
  readonly connectMs?: number;
  /** The wait for an answer: for its headers, then between two chunks of its body. Default 30 000. */
  readonly requestMs?: number;
  /** From the request being sent to the response headers. Default `requestMs`. */
  readonly headersMs?: number;
  /** Between two chunks of the response body. Default `requestMs`. */
  readonly bodyMs?: number;
}

export interface TransportOptions {
  /** The API root, as `resolveBaseUrl` returns it (trailing `/`, https or loopback). */
  readonly baseUrl: URL;
  /** Sent as `Authorization: Token <key>`; never logged, never in a message. */
  readonly apiKey: string;
  /** Requests per second for the whole run (the service allows 10 by default). Default 10. */
  readonly rate?: number;
  /**
   * Fraction of `rate` kept free so that jitter on the way never makes 11 requests land in the
   * service's one-second window (the API advises draining "below the limit"). Default `DEFAULT_HEADROOM`, 0.03:
   * 10 req/s becomes one request every 103 ms (9.7 req/s).
   */
  readonly headroom?: number;
  /** Connections kept open to the service (the pipeline caps requests in flight). Default 4. */
  readonly concurrency?: number;
  /** Attempts per request on 5xx and network failures, the first included. Default 5. */
  readonly maxAttempts?: number;
  /** Non-idempotent requests that may have been applied: `unknown` (never resent) or `resend`; see `InDoubtMode`. Default `unknown`. */
  readonly inDoubt?: InDoubtMode;
  /** Longest pause a 429 may ask for; a longer one stops the run (rows left `not_sent`, to resume later). Default 300 000 (5 minutes). */
  readonly maxPauseMs?: number;
  /** When the run stops because every request fails the same way; see `Breaker`. */
  readonly breaker?: BreakerOptions;
  readonly timeouts?: TransportTimeouts;
  /** Default `engage-import` (the CLI passes `engage-import/<version>`). */
  readonly userAgent?: string;
  /** Run-wide retry allowance; see `RetryBudget`. Default 500 tokens, 5 a retry, 1 back a success. */
  readonly retryBudget?: RetryBudgetOptions;
  /** Default: the global `fetch` (read at call time, so nock's interception applies), with an undici `Agent` as dispatcher. */
  readonly fetch?: typeof fetch;
  /** Default: `setTimeout` from `node:timers/promises`. Must resolve (or reject) early when `signal` aborts. */
  readonly sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  /** Milliseconds on the clock `sleep` waits on. Default `Date.now`. */
  readonly now?: () => number;
  /** In [0, 1), for the backoff jitter. Default `Math.random`. */
  readonly random?: () => number;
  /**
   * Aborted on SIGINT/SIGTERM: requests not yet sent (and those waiting to be sent again) end
   * as `not_sent`, pauses end at once; requests in flight are let finish so that their outcome
   * is known. Default: never aborted.
   */
  readonly signal?: AbortSignal;
  /** Throttling, retries and give-ups, for the log. Default: ignored. */
  readonly onEvent?: (event: TransportEvent) => void;
}
