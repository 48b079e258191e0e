/**
 * A run-wide allowance for retries (AWS SDK `util-retry` "retry quota"): each retry costs
 * tokens, each success gives one back. A healthy run never notices it; a burst of 5xx or broken
 * connections empties it quickly, and then failing requests fail with their last error instead
 * of multiplying the load on a service that is already struggling (no retry storm).
 */
export interface RetryBudgetOptions {
  /** Tokens at the start and at most. Default 500. */
  readonly capacity?: number;
  /** Tokens one retry costs. Default 5. */
  readonly retryCost?: number;
  /** Tokens a successful request gives back. Default 1. */
  readonly successRefund?: number;
}

export class RetryBudget {
  readonly #capacity: number;
  readonly #retryCost: number;
  readonly #successRefund: number;
  #tokens: number;

  constructor(options: RetryBudgetOptions = {}) {
    this.#capacity = options.capacity ?? 500;
    this.#retryCost = options.retryCost ?? 5;
    this.#successRefund = options.successRefund ?? 1;
    this.#tokens = this.#capacity;
  }

  /** Takes the cost of one retry; false (and nothing taken) when the budget cannot pay for it. */
  tryAcquire(): boolean {
    if (this.#tokens < this.#retryCost) return false;
    this.#tokens -= this.#retryCost;
    return true;
  }

  onSuccess(): void {
    this.#tokens = Math.min(this.#capacity, this.#tokens + this.#successRefund);
  }

  get available(): number {
    return this.#tokens;
  }
}
