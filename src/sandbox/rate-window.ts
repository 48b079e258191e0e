/**
 * The rate limit (docs/api-contract.md R-RATE-1) as a sliding one-second window of request times, per API key: a
 * request is let through while fewer than `limit` requests were let through in the last second.
 * Like the web framework's throttle (R-RATE-4), only requests let through are counted:
 * a client hammering a 429 does not push its own window further out.
 */
export class RateWindow {
  /** Times (ms) of the requests let through, oldest first, per key; `head` skips expired ones. */
  private readonly windows = new Map<string, { times: number[]; head: number }>();

  /**
   * @param limit requests per window; 0 turns the limit off (`--rate 0`).
   * @param windowMs length of the window. Default 1000 (R-RATE-1: requests per second).
   */
  constructor(
    private limit: number,
    private readonly windowMs = 1000,
  ) {
    RateWindow.check(limit);
  }

  /** The current limit (0 = off). */
  get rate(): number {
    return this.limit;
  }

  /** Changes the limit while running (`PATCH /__sandbox/faults`); the recorded times stay. */
  setRate(limit: number): void {
    RateWindow.check(limit);
    this.limit = limit;
  }

  /**
   * Lets a request of `key` at `now` through (and counts it), or answers how many whole seconds
   * to wait: at least 1 (R-RATE-2 `retry-after`), rounded up so that a client that waits that
   * long is let through.
   */
  take(
    key: string,
    now: number,
  ): { readonly allowed: true } | { readonly allowed: false; readonly retryAfter: number } {
    if (this.limit === 0) return { allowed: true };
    let window = this.windows.get(key);
    if (window === undefined) {
      window = { times: [], head: 0 };
      this.windows.set(key, window);
    }
    const { times } = window;
    // A time exactly one window old no longer counts (the framework drops `t <= now - duration`).
    while (window.head < times.length && times[window.head]! <= now - this.windowMs) window.head++;
    if (window.head > 1024 && window.head * 2 > times.length) {
      times.splice(0, window.head);
      window.head = 0;
    }
    const inWindow = times.length - window.head;
    if (inWindow < this.limit) {
      times.push(now);
      return { allowed: true };
    }
    // The request is let through once enough of the window has expired to leave one free slot.
    const freeingTime = times[window.head + inWindow - this.limit]! + this.windowMs;
    return { allowed: false, retryAfter: Math.max(1, Math.ceil((freeingTime - now) / 1000)) };
  }

  /** Forgets every recorded time (`POST /__sandbox/reset`). */
  reset(): void {
    this.windows.clear();
  }

  private static check(limit: number): void {
    if (!Number.isInteger(limit) || limit < 0)
      throw new RangeError(`rate must be a whole number of requests per second, 0 or more (got ${limit})`);
  }
}

/**
 * The body of a 429 (R-RATE-2, format 3) in the web framework's wording:
 * `1 second`, `2 seconds`.
 */
export function throttledMessage(retryAfter: number): string {
  return `Request was throttled. Expected available in ${retryAfter} second${retryAfter === 1 ? '' : 's'}.`;
}
