import type { ResourceName } from '../config/mapping-schema.js';
import type { SyncKind } from './sync-key.js';

/**
 * One accepted row as the run ledger records it, in the same transaction as its `ok` outcome
 * (a transactional outbox): the only way anything enters the sync state.
 */
export interface SyncDelta {
  /** Position in the run's outbox; increases with commit order, never reused. */
  readonly seq: number;
  readonly resource: ResourceName;
  /** `doubt`: an event whose outcome is unknown (it may have been recorded); reported unknown until resolved. */
  readonly kind: SyncKind | 'doubt';
  /** Entity key (`custom_id=C-1`) or event identity (hex). */
  readonly key: string;
  /** Request hash (hex). */
  readonly hash: string;
  /** ISO 8601 time the outcome was committed. */
  readonly at: string;
}

/**
 * What the sync state needs of one run's ledger. The ledger records a delta with every `ok`
 * outcome of a row that has a sync key, in the same SQLite transaction; the state reads them
 * back in `seq` order and remembers how far it got, per run.
 */
export interface LedgerSyncFeed {
  readonly runId: string;
  /** Whether the run has finished: its outbox then grows no more, and once applied is never read again. */
  readonly finished: boolean;
  /** Fingerprint of the mapping each resource was sent with (see `mappingFingerprint`). */
  readonly fingerprints: Readonly<Partial<Record<ResourceName, string>>>;
  /** Deltas with `seq > after`, ascending, at most `limit`. */
  deltasAfter(after: number, limit: number): readonly SyncDelta[];
}
