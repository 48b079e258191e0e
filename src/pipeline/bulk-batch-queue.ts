/**
 * A bulk stage's open batches, in input order, and their imports one after the other: the chunk
 * being filled, the resumed chunk being joined again, and the closed ones still importing or
 * being settled. The oldest open batch holds the report window's head.
 */
import { headerLine } from '../bulk/chunk-csv.js';
import type { BulkChunkRecord } from '../ledger/bulk-chunks.js';
import {
  answerEach,
  closesBefore,
  freshBatch,
  recordBatch,
  resumedBatch,
  type Batch,
  type FreshBatch,
  type ResumedBatch,
} from './bulk-batch.js';
import { runFresh, runResumed, type StageBulk, type Turn } from './bulk-batch-import.js';
import { settled } from './report-window.js';
import { baseLine } from './send-row.js';

export class BatchQueue {
  readonly #run: StageBulk;
  readonly #header: string;
  readonly #open: Batch[] = [];
  #filling: FreshBatch | undefined;
  #resuming: ResumedBatch | undefined;
  #chain: Promise<void>;
  /** Each closed batch's upload, answered (or not to leave): the batch before it settles after that. */
  readonly #uploads = new Map<Batch, Promise<void>>();
  #leaving: Promise<void> | undefined;

  constructor(run: StageBulk) {
    this.#run = run;
    this.#header = headerLine(run.deps.plan.columns);
    // The chunk folder exists already (`sendByBulk` makes it before the first row).
    this.#chain = Promise.resolve();
  }

  /**
   * The batch of the recorded chunk a row in flight at a crash joins again; a different chunk's
   * batch, or the chunk being filled, is closed first. Batches go to the service in the order they
   * are closed, and that must be input order: of two rows of one key, the later must be imported
   * last, so a recorded chunk cannot wait while chunks read after it are imported.
   */
  resumedBatchOf(record: BulkChunkRecord): ResumedBatch {
    if (this.#resuming !== undefined && this.#resuming.record.chunk !== record.chunk) this.close(this.#resuming);
    if (this.#filling !== undefined) this.close(this.#filling);
    if (this.#resuming === undefined) {
      this.#resuming = resumedBatch(record);
      this.#open.push(this.#resuming);
    }
    return this.#resuming;
  }

  /**
   * The chunk a row with this CSV line goes in: a new one when the one being filled cannot take
   * it (a row whose key it holds is not asked here: see `holdsOpen`). A recorded chunk joined again
   * is closed first (see `resumedBatchOf`).
   */
  batchFor(text: string): FreshBatch {
    if (this.#resuming !== undefined) this.close(this.#resuming);
    if (this.#filling !== undefined && closesBefore(this.#filling, text)) this.close(this.#filling);
    if (this.#filling === undefined) {
      this.#filling = freshBatch(this.#run.names.chunk(), this.#header);
      this.#open.push(this.#filling);
    }
    return this.#filling;
  }

  /**
   * Starts a batch's upload or poll after the batches before it: one import at a time. A fresh
   * chunk's file is closed and its rows recorded at once, while the import before it may still
   * run, so that its upload can leave as soon as its turn comes; and the next batch's turn comes
   * once this one's imports have ended, before its rows' outcomes are recorded (`Turn`).
   */
  close(batch: Batch): void {
    if (batch === this.#filling) this.#filling = undefined;
    if (batch === this.#resuming) this.#resuming = undefined;
    if (batch.done !== undefined) return;
    const run = this.#run;
    const recorded = batch.kind === 'fresh' ? recordBatch(run.stage, run.deps, batch) : undefined;
    // Awaited in its turn; a failure then stops the run there, as any other in `runFresh`.
    recorded?.catch(() => undefined);
    const importsEnded = signal();
    const uploaded = signal();
    this.#uploads.set(batch, uploaded.promise);
    const turn: Turn = {
      handOff: () => {
        importsEnded.resolve();
        return this.#nextUpload(batch);
      },
      uploaded: () => uploaded.resolve(),
    };
    const work = this.#chain
      .then(() => {
        // Its turn: the service waits for this upload now.
        const leaving = uploaded.promise.then(() => {
          if (this.#leaving === leaving) this.#leaving = undefined;
        });
        this.#leaving = leaving;
        return batch.kind === 'fresh' ? runFresh(run, batch, recorded!, turn) : runResumed(run, batch, turn);
      })
      .catch((error: unknown) => {
        // A bug: stop the run; rows not yet answered say so (an answered row keeps its line).
        run.deps.state.stop({ kind: 'bug', error });
        answerEach(batch.members, (m) =>
          settled({
            ...baseLine(run.stage, m.row),
            status: 'unknown',
            message: `stopped on an error while this row's bulk import was handled: ${error instanceof Error ? error.message : String(error)}`,
          }),
        );
      });
    batch.done = work.finally(() => {
      uploaded.resolve();
      this.#uploads.delete(batch);
      this.#open.splice(this.#open.indexOf(batch), 1);
    });
    batch.closed?.resolve();
    this.#chain = Promise.race([importsEnded.promise, work]);
  }

  /**
   * Once every open batch that holds `key` has settled, or undefined when none does: a row with
   * that key sent per row must not reach the API before the import of an earlier row with it, or
   * the import would undo it. The chunk being filled (or the recorded chunk a resume is joining
   * again) is not closed for it: the row waits for that chunk to close as it would (full, the
   * report window full, the next row that needs a new chunk, the stage's end), so that a key
   * every few rows does not cut every chunk short, nor a resumed chunk in pieces each polled again.
   */
  settledWith(key: string): Promise<void> | undefined {
    const holding = this.#open.filter((b) => keysOf(b).has(key));
    if (holding.length === 0) return undefined;
    const waits = holding.map((b) => {
      if (b !== this.#filling && b !== this.#resuming) return b.done;
      b.closed ??= signal();
      return b.closed.promise.then(() => b.done);
    });
    return Promise.all(waits).then(() => undefined);
  }

  /** Whether the chunk being filled, or the recorded chunk being joined again, holds `key` already. */
  holdsOpen(key: string): boolean {
    return this.#filling?.keys.has(key) === true || (this.#resuming !== undefined && keysOf(this.#resuming).has(key));
  }

  /** While a batch's turn has come and its upload has not been answered: the stage reads no further row. */
  get uploadLeaving(): Promise<void> | undefined {
    return this.#leaving;
  }

  /** The upload of the batch after this one, if that batch is closed already: it is next at the service. */
  #nextUpload(batch: Batch): Promise<void> {
    const next = this.#open[this.#open.indexOf(batch) + 1];
    return (next !== undefined && this.#uploads.get(next)) || Promise.resolve();
  }

  /** At the stage's end, every batch is closed and waited for; when the window is full, the oldest. */
  async flush(reason: 'window_full' | 'stage_end'): Promise<boolean> {
    if (reason === 'stage_end') {
      if (this.#resuming !== undefined) this.close(this.#resuming);
      if (this.#filling !== undefined) this.close(this.#filling);
      while (this.#open.length > 0) await this.#open[0]!.done;
      await this.#chain;
      return true;
    }
    // The oldest open batch holds the window's head, or holds up what the head waits for: start
    // it if it is still filling, wait for it. The head may wait on a batch behind it (a row sent
    // per row after the chunk being filled, a batch that had settled its rows but not yet ended):
    // the stage then asks again, and the next batch is started.
    const oldest = this.#open[0];
    if (oldest === undefined) return false;
    this.close(oldest);
    await oldest.done;
    return true;
  }
}

/** A promise and the function that resolves it (Node 20 has no `Promise.withResolvers`). */
function signal(): { readonly promise: Promise<void>; readonly resolve: () => void } {
  let resolve: () => void = () => undefined;
  const promise = new Promise<void>((r) => {
    resolve = r;
  });
  return { promise, resolve };
}

/** A batch's keys: a fresh one's as they were added, a recorded chunk's from its record (a set made once). */
function keysOf(batch: Batch): ReadonlySet<string> {
  if (batch.kind === 'fresh') return batch.keys;
  batch.keySet ??= new Set(batch.record.keys.filter((k): k is string => k !== null && k !== undefined));
  return batch.keySet;
}
