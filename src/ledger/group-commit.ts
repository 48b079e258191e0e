/**
 * Group commit: every write requested in the same turn of the event loop is committed in one
 * transaction, and everyone waiting on that batch is resolved together once it is durable. With
 * `synchronous = FULL` each commit costs one fsync; sharing it between the rows that are in
 * flight at once keeps the ledger's cost per row low without ever letting a request leave before
 * its intent is on disk.
 */
export interface GroupCommitOptions<T> {
  /**
   * Writes one batch in one transaction; throwing fails the whole batch (every waiter rejects
   * with that error, nothing of it is committed).
   */
  readonly commit: (batch: readonly T[]) => void;
  /**
   * Schedules a flush. Default `setImmediate`: it runs after the I/O callbacks of the current
   * turn, so answers that arrive together share a commit (a microtask would cut the batch at the
   * first callback).
   */
  readonly schedule?: (flush: () => void) => void;
}

interface Waiting<T> {
  readonly item: T;
  readonly resolve: () => void;
  readonly reject: (error: unknown) => void;
}

export class GroupCommit<T> {
  readonly #commit: (batch: readonly T[]) => void;
  readonly #schedule: (flush: () => void) => void;
  #pending: Waiting<T>[] = [];
  #scheduled = false;
  #commits = 0;
  #closed = false;

  constructor(options: GroupCommitOptions<T>) {
    this.#commit = options.commit;
    this.#schedule = options.schedule ?? ((flush) => void setImmediate(flush));
  }

  /** Queues a write; resolves once the transaction holding it has committed. */
  enqueue(item: T): Promise<void> {
    if (this.#closed) return Promise.reject(new Error('group commit used after close'));
    return new Promise<void>((resolve, reject) => {
      this.#pending.push({ item, resolve, reject });
      if (!this.#scheduled) {
        this.#scheduled = true;
        this.#schedule(() => this.#flushNow());
      }
    });
  }

  /** Commits whatever is queued now, without waiting for the scheduled flush. */
  flush(): Promise<void> {
    const failed = this.#flushNow();
    return failed === undefined ? Promise.resolve() : Promise.reject(failed.error);
  }

  /** Flushes, then refuses further writes. */
  async close(): Promise<void> {
    try {
      await this.flush();
    } finally {
      this.#closed = true;
    }
  }

  /** Transactions committed so far (for tests and the per-row cost measurement). */
  get commits(): number {
    return this.#commits;
  }

  /** Writes queued and not yet committed. */
  get pending(): number {
    return this.#pending.length;
  }

  /** Commits the queue in one transaction; returns the error when it failed. */
  #flushNow(): { error: unknown } | undefined {
    // A scheduled flush that finds the queue emptied by flush() has nothing to do; one that runs
    // early for a later batch commits it a little sooner, which is harmless.
    this.#scheduled = false;
    const batch = this.#pending;
    this.#pending = [];
    if (batch.length === 0) return undefined;
    try {
      this.#commit(batch.map((w) => w.item));
    } catch (error) {
      for (const w of batch) w.reject(error);
      return { error };
    }
    this.#commits++;
    for (const w of batch) w.resolve();
    return undefined;
  }
}
