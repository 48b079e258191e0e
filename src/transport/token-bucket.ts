/**
 * The one pacer of a run: every request of the transport takes a slot here, whatever its
 * stage or concurrency. Slots are spread evenly, `1000 / rate` ms apart, with no burst
 * allowance: the API's guidance is to "queue requests and drain at a steady rate below the limit,
 * avoid bursts". A 429 pauses the whole bucket for the time the service asked, and
 * the slots after the pause are spread evenly again from its end.
 *
 * Reservations are synchronous, so any number of concurrent `take` calls is safe.
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

export class TokenBucket {
  readonly #interval: number;
  /** The limit's own spacing, `1000 / rate`: no two permissions are closer than this. */
  readonly #minGap: number;
  /** When the last permission was actually given (a caller may wake later than its slot). */
  #lastGiven = Number.NEGATIVE_INFINITY;
  readonly #now: () => number;
  readonly #sleep: (ms: number, signal?: AbortSignal) => Promise<void>;
  /** Earliest time the next slot can be given. */
  #next = Number.NEGATIVE_INFINITY;
  #pausedUntil = Number.NEGATIVE_INFINITY;

  constructor(options: TokenBucketOptions) {
    if (!(options.rate > 0) || !Number.isFinite(options.rate))
      throw new RangeError(`rate must be a positive number, got ${options.rate}`);
    const headroom = options.headroom ?? 0;
    if (!(headroom >= 0 && headroom < 1)) throw new RangeError(`headroom must be in [0, 1), got ${headroom}`);
    this.#interval = 1000 / (options.rate * (1 - headroom));
    this.#minGap = 1000 / options.rate;
    this.#now = options.now;
    this.#sleep = options.sleep;
  }

  /**
   * Waits for this caller's slot. True when the caller may send now; false when `signal`
   * aborted first (the slot is given up).
   */
  async take(signal: AbortSignal): Promise<boolean> {
    for (;;) {
      if (signal.aborted) return false;
      const now = this.#now();
      if (now < this.#pausedUntil) {
        await this.#wait(this.#pausedUntil - now, signal);
        continue;
      }
      const slot = Math.max(now, this.#next);
      this.#next = slot + this.#interval;
      if (slot > now) {
        await this.#wait(slot - now, signal);
        if (signal.aborted) return false;
        // A 429 may have paused the bucket while this caller slept: queue again behind the pause.
        if (this.#now() < this.#pausedUntil) continue;
      }
      if (!(await this.#keepDistance(signal))) return false;
      if (this.#now() < this.#pausedUntil) continue;
      this.#lastGiven = this.#now();
      return true;
    }
  }

  /**
   * Slots are kept on a schedule, but a caller whose timer fires late (a busy event loop, a loaded
   * machine) sends later than its slot, and the next one, on time, would follow it closely: eleven
   * requests could then fall within one second of the service's sliding window. So a permission
   * also waits until the limit's own spacing has passed since the last one actually given. On an
   * idle machine the headroom absorbs a timer's usual lateness and this never waits.
   */
  async #keepDistance(signal: AbortSignal): Promise<boolean> {
    for (;;) {
      const early = this.#lastGiven + this.#minGap - this.#now();
      if (early <= 0) return true;
      await this.#wait(early, signal);
      if (signal.aborted) return false;
    }
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

  async #wait(ms: number, signal: AbortSignal): Promise<void> {
    if (signal.aborted) return;
    try {
      await this.#sleep(ms, signal);
    } catch (error) {
      // An injected sleep may reject on abort; the caller checks the signal itself.
      if (!signal.aborted) throw error;
    }
  }
}
