/** The ledger's types, apart from the code that implements them (no file imports its own importer). */
import type { ResourceName } from '../config/mapping-schema.js';
import type { RowState } from '../transport/in-doubt.js';
import type { RunIdentity } from './identity.js';
import type { LockOptions, LockOwner, StateLock } from './lock.js';

/** Where a row stands: `intent` is committed before its request leaves, the others after the answer. */
export type LedgerState = RowState;

export interface LedgerEntry {
  readonly state: LedgerState;
  readonly status: number | null;
  readonly id: string | null;
  readonly message: string | null;
}

export interface Outcome {
  readonly state: 'ok' | 'failed' | 'unknown';
  readonly status?: number | undefined;
  readonly id?: string | undefined;
  readonly message?: string | undefined;
  /**
   * With an `ok` outcome: what the sync state remembers of the row (its entity key or event
   * identity and request hash). Appended to the outbox in the same transaction as the outcome.
   */
  readonly sync?: OutboxKey | undefined;
}

/** One row's outcome in a batch (`recordOutcomes`). */
export interface LineOutcome {
  readonly line: number;
  readonly outcome: Outcome;
}

/** A row's sync key as the outbox stores it (the sync state's `SyncKey`, src/sync/sync-key.ts). */
export interface OutboxKey {
  readonly resource: ResourceName;
  readonly kind: 'entity' | 'event';
  readonly key: string;
  readonly hash: string;
}

/** One outbox row as read back: its position, the key, and when its outcome was committed. */
export interface OutboxDelta extends OutboxKey {
  readonly seq: number;
  readonly at: string;
}

/**
 * The ledger of one run. A row is identified by `source` (the index of its mapping in the
 * run's order) and `line` (the CSV line where its record starts).
 */
export interface Ledger {
  readonly runId: string;
  readonly runDir: string;
  readonly finished: boolean;
  readonly identity: RunIdentity;
  /** Synchronous read of what is known of a row (fast: prepared statement), pending writes included. */
  get(source: number, line: number): LedgerEntry | undefined;
  /** Resolves once the intent is committed: only then may the request be sent. Refused for a row already `ok`. */
  recordIntent(source: number, line: number): Promise<void>;
  /**
   * The intents of many rows of one source (a bulk chunk's), in one write: resolves once all are
   * committed, refused as a whole when one of them is already `ok`.
   */
  recordIntents(source: number, lines: readonly number[]): Promise<void>;
  /** Resolves once the outcome is committed. */
  recordOutcome(source: number, line: number, outcome: Outcome): Promise<void>;
  /** The outcomes of many rows of one source (a bulk chunk's), in one write: resolves once all are committed. */
  recordOutcomes(source: number, outcomes: readonly LineOutcome[]): Promise<void>;
  /** Drops an `intent` whose request did not leave after all (401 before it, the run stopping); other states are kept. */
  forget(source: number, line: number): Promise<void>;
  /** Counts by state, for the summary and tests. */
  counts(): Record<LedgerState, number>;
  markFinished(): Promise<void>;
  /**
   * Marks a finished run unfinished again: `resume --resend-unknown` sends rows of a finished run,
   * and if that is interrupted, the run must still be there to resume.
   */
  reopen(): Promise<void>;
  /** Flush pending commits, release the lock. */
  close(): Promise<void>;
}

/** What createRun/openForResume return: the Ledger, plus what the CLI and the tests may want. */
export interface OpenLedger extends Ledger {
  /** `<run-dir>/ledger.sqlite`. */
  readonly file: string;
  /** Transactions committed by this handle: N writes in one tick make one (tests, cost measurement). */
  readonly commits: number;
  /** Set when the state directory's lock was left by a dead process and taken over (worth a line on stderr). */
  readonly lockTakenOverFrom: LockOwner | undefined;
  /**
   * Stores the fingerprint of the mapping each resource is sent with (run meta), read back with
   * the outbox so the sync state can tell a mapping change from a data change.
   */
  recordFingerprints(fingerprints: Readonly<Partial<Record<ResourceName, string>>>): Promise<void>;
  /**
   * Rows `unknown` whose message gives `why` (a reason the in-doubt rule wrote), queued writes
   * included as `counts` has them: the CLI's advice tells apart rows a resend cannot settle.
   */
  countUnknownBecause(why: string): number;
  /** Called after every commit of this handle (the sync state applies the new outbox rows). */

  afterCommit(listener: () => void): void;
  /**
   * Closes a new run that stopped before its first row (a refused input, an output that cannot
   * be written): when its ledger holds no row, nothing was sent and there is nothing to resume, so
   * its folder is removed, before the lock is released, and the next run is not told to resume
   * it. A ledger with any row is closed as `close` does. Answers whether the folder was removed.
   */
  closeRemovingIfEmpty(): Promise<boolean>;
}

export interface LedgerOptions {
  /** Paths in messages are shown relative to it. Default `process.cwd()`. */
  readonly cwd?: string;
  /** Passed to the state directory's lock (tests: pid, host, liveness). Default: this process. */
  readonly lock?: LockOptions;
  /**
   * The state directory's lock, which the caller took already (waiting for it, then checking what
   * only holds while no other run can start): the run keeps it instead of taking one.
   */
  readonly heldLock?: StateLock | undefined;
  /** `--key-rotated`: a resume with another API key goes on, and the run keeps the new key's fingerprint. */
  readonly keyRotated?: boolean | undefined;
  /** Schedules a group commit. Default `setImmediate` (see GroupCommit). */
  readonly schedule?: (flush: () => void) => void;
}
