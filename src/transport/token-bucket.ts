/**
 * The one pacer of a run: every request of the transport takes a slot here, whatever its
 * stage or concurrency. Slots are spread evenly, `1000 / rate` ms apart, with no burst
 * allowance: the API's guidance is to "queue requests and drain at a steady rate below the limit,
 * avoid bursts". A 429 pauses the whole bucket for the time the service asked, and
 * the slots after the pause are spread evenly again from its end.
 *
 * Callers are let through one at a time, in the order they asked: one loop paces the queue, so a
 * caller never overtakes another. A permission that comes late (a busy event loop, a loaded
 * machine) restarts the schedule from when it was given, so the next one keeps its distance.
 */
export interface TokenBucketOptions {
  /** Requests per second. */
  readonly rate: number;
  /**
   * Fraction to stay below `rate`. Default 0. The transport uses a little: requests reach the
   * service with some jitter, and against a strict sliding window a client at exactly the limit
   * sees an occasional 429 whenever the first of eleven requests arrives a few ms late.
   */
  readonly headroom?: number;
  readonly now: () => number;
  /** Resolves after `ms`, or early (or rejects) when `signal` aborts. */
  readonly sleep: (ms: number, signal?: AbortSignal) => Promise<void>;
}

interface Waiter {
  readonly signal: AbortSignal;
  readonly resolve: (go: boolean) => void;
  readonly reject: (error: unknown) => void;
  readonly onAbort: () => void;
}

export class TokenBucket {
  readonly #interval: number;
  /**
   * How late a permission may be and the schedule still hold. The headroom leaves this much slack
   * in any second (`rate` slots span `1000 / (1 - headroom)` ms); half of it absorbs a timer's
   * usual lateness. Later than that, the schedule starts again from the permission's own time:
   * kept, it would let the next caller follow closely, and eleven requests could fall within one
   * second of the service's sliding window.
   */
  readonly #lateness: number;
  readonly #now: () => number;
  readonly #sleep: (ms: number, signal?: AbortSignal) => Promise<void>;
  /** Earliest time the next permission can be given. */
  #next = Number.NEGATIVE_INFINITY;
  #pausedUntil = Number.NEGATIVE_INFINITY;
  readonly #queue: Waiter[] = [];
  /** Set while the pacing loop runs; aborted when every waiter has given up, so no timer outlives them. */
  #pacing: AbortController | undefined;

  constructor(options: TokenBucketOptions) {
    if (!(options.rate > 0) || !Number.isFinite(options.rate))
      throw new RangeError(`rate must be a positive number, got ${options.rate}`);
    const headroom = options.headroom ?? 0;
    if (!(headroom >= 0 && headroom < 1)) throw new RangeError(`headroom must be in [0, 1), got ${headroom}`);
    this.#interval = 1000 / (options.rate * (1 - headroom));
    this.#lateness = (1000 / (1 - headroom) - 1000) / 2;
    this.#now = options.now;
    this.#sleep = options.sleep;
  }

  /**
   * Waits for this caller's turn. True when the caller may send now; false when `signal`
   * aborted first (the turn is given up).
   */
  take(signal: AbortSignal): Promise<boolean> {
    if (signal.aborted) return Promise.resolve(false);
    if (this.#queue.length === 0 && this.#now() >= this.#earliest()) {
      this.#give(this.#now(), false);
      return Promise.resolve(true);
    }
    return new Promise<boolean>((resolve, reject) => {
      const waiter: Waiter = {
        signal,
        resolve,
        reject,
        onAbort: () => {
          this.#remove(waiter);
          resolve(false);
        },
      };
      signal.addEventListener('abort', waiter.onAbort, { once: true });
      this.#queue.push(waiter);
      // A loop told to stop (its waiters all gave up) may still be asleep in a sleep that ignores
      // the signal: it ends when it wakes, and a new one paces this caller.
      if (this.#pacing === undefined || this.#pacing.signal.aborted)
        // An injected sleep that fails fails the callers waiting on this loop, as a caller's own sleep did.
        this.#pace().catch((error: unknown) => {
          for (const w of this.#queue.splice(0)) {
            w.signal.removeEventListener('abort', w.onAbort);
            w.reject(error);
          }
        });
    });
  }

  /** Nobody sends before `until` (ms on the `now` clock); later pauses extend, never shorten. */
  pauseUntil(until: number): void {
    this.#pausedUntil = Math.max(this.#pausedUntil, until);
    this.#next = Math.max(this.#next, this.#pausedUntil);
  }

  /** When the current pause ends, or undefined when the bucket is not paused. */
  pausedUntil(): number | undefined {
    return this.#now() < this.#pausedUntil ? this.#pausedUntil : undefined;
  }

  #earliest(): number {
    return Math.max(this.#next, this.#pausedUntil);
  }

  /** Lets the queue through, its first caller at each permission's time. */
  async #pace(): Promise<void> {
    const pacing = new AbortController();
    this.#pacing = pacing;
    try {
      while (this.#queue.length > 0) {
        const due = this.#earliest();
        const wait = due - this.#now();
        if (wait > 0) {
          await this.#wait(wait, pacing.signal);
          if (pacing.signal.aborted) return;
          // A 429 may have paused the bucket meanwhile: look again.
          if (this.#now() < this.#earliest()) continue;
        }
        const waiter = this.#queue.shift();
        if (waiter === undefined) return;
        waiter.signal.removeEventListener('abort', waiter.onAbort);
        this.#give(due, true);
        waiter.resolve(true);
      }
    } finally {
      if (this.#pacing === pacing) this.#pacing = undefined;
    }
  }

  /**
   * A permission given now, for the slot `due`: the next one is an interval after the slot, or,
   * when this one came later than the lateness allows, after the latest slot it could have had.
   * Each permission then comes at most `#lateness` after its slot, and slots stay an interval
   * apart: any `rate` permissions span more than a second.
   */
  #give(due: number, scheduled: boolean): void {
    const now = this.#now();
    const from = scheduled ? Math.max(due, now - this.#lateness) : now;
    this.#next = from + this.#interval;
  }

  #remove(waiter: Waiter): void {
    const at = this.#queue.indexOf(waiter);
    if (at >= 0) this.#queue.splice(at, 1);
    if (this.#queue.length === 0) this.#pacing?.abort();
  }

  async #wait(ms: number, signal: AbortSignal): Promise<void> {
    if (signal.aborted) return;
    try {
      await this.#sleep(ms, signal);
    } catch (error) {
      // An injected sleep may reject on abort; the loop checks the signal itself.
      if (!signal.aborted) throw error;
    }
  }
}
