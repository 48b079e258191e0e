import type { NetworkFailureKind } from './network-errors.js';

/**
 * When a request is sent again, as data (CONVENTIONS: ky `retry-timing`, AWS SDK `util-retry`).
 * 429 is not here: a throttled request was not applied, so it waits for `retry-after` and is
 * sent again without using an attempt (api.md §8); only `maxThrottles` bounds it.
 */
export interface RetryPolicy {
  /** Statuses worth another attempt: the service's own transient failures (api.md §7.1 "500: retry with backoff"). */
  readonly retryableStatuses: ReadonlySet<number>;
  /** Attempts per request, the first one included (429 answers not counted). Default 5. */
  readonly maxAttempts: number;
  /** Backoff before retry n is `random() * min(maxDelayMs, baseDelayMs * 2^(n-1))` (full jitter). Default 500. */
  readonly baseDelayMs: number;
  /** Default 30 000. */
  readonly maxDelayMs: number;
  /** 429 answers one request may get before it is given up as `failed`. Default 50. */
  readonly maxThrottles: number;
  /** Pause after the n-th 429 that names no wait (no `retry-after`, no "Expected available in"): `min(maxDelayMs, throttleBaseMs * 2^(n-1))`. Default 1000. */
  readonly throttleBaseMs: number;
}

export const DEFAULT_RETRY_POLICY: RetryPolicy = {
  retryableStatuses: new Set([500, 502, 503, 504]),
  maxAttempts: 5,
  baseDelayMs: 500,
  maxDelayMs: 30_000,
  maxThrottles: 50,
  throttleBaseMs: 1000,
};

/**
 * What may be resent when the request is not idempotent (idempotent requests are resent in every mode):
 * - `safe`: resent only when it surely did not reach the service (no connection) or after a 5xx;
 *   a lost answer becomes `unknown`.
 * - `never`: as `safe`, and a 5xx becomes `unknown` too: at most once.
 * - `always`: lost answers are resent too: at least once (duplicates possible).
 */
export type UnsafeRetries = 'safe' | 'never' | 'always';

/** Why one attempt did not succeed. */
export type AttemptFailure =
  | { readonly type: 'status'; readonly status: number }
  | { readonly type: 'network'; readonly kind: Exclude<NetworkFailureKind, 'tls'> };

/**
 * - `retry`: send again (if attempts and the retry budget allow; otherwise `give_up`).
 * - `fail`: the service said no, or resending cannot help: outcome `failed`.
 * - `unknown`: the request may have been applied and must not be resent: outcome `unknown`.
 */
export type RetryDecision = 'retry' | 'fail' | 'unknown';

export function decide(failure: AttemptFailure, idempotent: boolean, mode: UnsafeRetries, policy: RetryPolicy): RetryDecision {
  if (failure.type === 'status') {
    // 400, 404 and the other 4xx: "fix the request; do not retry unchanged" (api.md §7.1).
    if (!policy.retryableStatuses.has(failure.status)) return 'fail';
    // A 5xx may come after the service applied part of the work: strictly at most once in `never`.
    return mode === 'never' && !idempotent ? 'unknown' : 'retry';
  }
  if (failure.kind === 'before_sent') return 'retry';
  return idempotent || mode === 'always' ? 'retry' : 'unknown';
}

/** What a request that ran out of attempts (or of retry budget) ends as, after its last failure. */
export function givenUpAs(failure: AttemptFailure): 'failed' | 'unknown' {
  return failure.type === 'network' && failure.kind === 'lost_answer' ? 'unknown' : 'failed';
}

/** Full jitter (AWS "exponential backoff and jitter"): `retry` is 1 for the first retry. */
export function backoffDelay(retry: number, policy: RetryPolicy, random: () => number): number {
  return random() * Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** (retry - 1));
}

/** Pause after the `throttles`-th 429 of a request when the service named no wait. */
export function throttleFallbackDelay(throttles: number, policy: RetryPolicy): number {
  return Math.min(policy.maxDelayMs, policy.throttleBaseMs * 2 ** (throttles - 1));
}
