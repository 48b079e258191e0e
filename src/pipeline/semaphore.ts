/**
 * Backpressure for the reader ("wait while the number of requests in flight is at
 * the cap"): `acquire` resolves when fewer than `capacity` holders remain.
 */
export class Semaphore {
  private active = 0;
  private readonly waiters: (() => void)[] = [];

  constructor(private readonly capacity: number) {
    if (!Number.isInteger(capacity) || capacity < 1)
      throw new RangeError(`capacity must be a positive integer, got ${capacity}`);
  }

  get inUse(): number {
    return this.active;
  }

  async acquire(): Promise<void> {
    if (this.active < this.capacity) {
      this.active++;
      return;
    }
    await new Promise<void>((resolve) => this.waiters.push(resolve));
  }

  release(): void {
    const next = this.waiters.shift();
    // Hand the slot straight to the next waiter, so a newcomer cannot overtake it.
    if (next) next();
    else this.active--;
  }

  /** Resolves once every holder has released (by queueing for every slot, behind them). */
  async idle(): Promise<void> {
    for (let i = 0; i < this.capacity; i++) await this.acquire();
    for (let i = 0; i < this.capacity; i++) this.release();
  }
}
