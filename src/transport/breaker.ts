import { HttpError } from '../errors.js';

/** When the run as a whole should stop sending, because every request meets the same wall. */
export interface BreakerOptions {
  /** Milliseconds of attempts that all never left (connection refused, DNS) before the run stops. Default 30 000. */
  readonly notSentWindowMs?: number;
  /** Consecutive attempts that timed out waiting for an answer before the run stops. Default 3. */
  readonly maxTimeouts?: number;
  /** Consecutive 2xx answers without the JSON object the API sends before the run stops. Default 3. */
  readonly maxMalformed?: number;
}

/** What one attempt came to, as the breaker sees it. */
export type Observation = 'answered' | 'malformed' | 'never_left' | 'timeout' | 'lost';

/**
 * Run-wide stop conditions, so that a dead service, a wrong base URL or a server that never
 * answers costs seconds rather than a whole file of rows: after it trips, the transport sends
 * nothing more and the run stops (exit 3) with every row left `not_sent`, to resume later.
 */
export class Breaker {
  readonly #window: number;
  readonly #maxTimeouts: number;
  readonly #maxMalformed: number;
  readonly #now: () => number;
  #neverLeftSince: number | undefined;
  #timeouts = 0;
  #malformed = 0;

  constructor(options: BreakerOptions, now: () => number) {
    this.#window = options.notSentWindowMs ?? 30_000;
    this.#maxTimeouts = options.maxTimeouts ?? 3;
    this.#maxMalformed = options.maxMalformed ?? 3;
    this.#now = now;
  }

  /** Records one attempt; returns the error that stops the run when this one trips the breaker. */
  observe(what: Observation, last: string): HttpError | undefined {
    if (what !== 'never_left') this.#neverLeftSince = undefined;
    if (what !== 'timeout' && what !== 'never_left') this.#timeouts = 0;
    if (what !== 'malformed') this.#malformed = 0;
    switch (what) {
      case 'never_left': {
        const now = this.#now();
        this.#neverLeftSince ??= now;
        if (now - this.#neverLeftSince < this.#window) return undefined;
        return new HttpError(
          'NETWORK',
          `no request could reach the API for ${Math.round((now - this.#neverLeftSince) / 1000)} s (last: ${last}); the run stopped`,
        );
      }
      case 'timeout':
        if (++this.#timeouts < this.#maxTimeouts) return undefined;
        return new HttpError(
          'NETWORK',
          `${this.#timeouts} requests in a row got no answer in time (last: ${last}); the run stopped (see --request-timeout)`,
        );
      case 'malformed':
        if (++this.#malformed < this.#maxMalformed) return undefined;
        return new HttpError(
          'HTTP_PROTOCOL',
          `${this.#malformed} answers in a row were not what the API sends (last: ${last}); the base URL is probably wrong, the run stopped. If it is right (a maintenance page, say), resume later. If it is wrong: a resume keeps the run's base URL, and this state directory now belongs to it; check the account for the rows in doubt, then start again with the right base URL and a new --state-dir, and keep that --state-dir on this job's command line from then on (its sync state is the job's history)`,
        );
      default:
        return undefined;
    }
  }
}
