import { DEFAULTS } from '../defaults.js';

/**
 * When a request is sent again, as data (as ky's `retry-timing` and the AWS SDK's `util-retry` do).
 * 429 is not here: a throttled request was not applied, so it waits for `retry-after` and is
 * sent again without using an attempt; only `maxThrottles` bounds it. Which answers are sent
 * again at all (a 5xx, a lost answer, when resending is harmless) is `classify`'s and `verdict`'s.
 */
export interface RetryPolicy {
  /** Attempts per request, the first one included (429 answers not counted). Default 5. */
  readonly maxAttempts: number;
  /** Backoff before retry n is `random() * min(maxDelayMs, baseDelayMs * 2^(n-1))` (full jitter). Default 500. */
  readonly baseDelayMs: number;
  /** Default 30 000. */
  readonly maxDelayMs: number;
  /** 429 answers one request may get before it is given up (`not_sent`). Default 50. */
  readonly maxThrottles: number;
  /** Pause after the n-th 429 that names no wait (no `retry-after`, no "Expected available in"): `min(maxDelayMs, throttleBaseMs * 2^(n-1))`. Default 1000. */
  readonly throttleBaseMs: number;
}

export const DEFAULT_RETRY_POLICY: RetryPolicy = {
  maxAttempts: DEFAULTS.maxAttempts,
  baseDelayMs: 500,
  maxDelayMs: 30_000,
  maxThrottles: 50,
  throttleBaseMs: 1000,
};

/** Full jitter (AWS "exponential backoff and jitter"): `retry` is 1 for the first retry. */
export function backoffDelay(retry: number, policy: RetryPolicy, random: () => number): number {
  return random() * Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** (retry - 1));
}

/** Pause after the `throttles`-th 429 of a request when the service named no wait. */
export function throttleFallbackDelay(throttles: number, policy: RetryPolicy): number {
  return Math.min(policy.maxDelayMs, policy.throttleBaseMs * 2 ** (throttles - 1));
}
