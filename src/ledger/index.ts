export { createRun, openForResume } from './ledger.js';
export type {
  Ledger,
  LedgerEntry,
  LedgerOptions,
  LedgerState,
  OpenLedger,
  OutboxDelta,
  OutboxKey,
  Outcome,
} from './types.js';
export {
  findLatestRun,
  findUnfinishedRun,
  readRun,
  stateDirOf,
  LEDGER_FILE,
  RUNS_FOLDER,
} from './run-dirs.js';
export type { RunInfo } from './run-dirs.js';
export { hashFile } from './hash-file.js';
export { identityChanges } from './identity.js';
export type { RunIdentity } from './identity.js';
export type { LockOwner, LockWait, StateLock } from './lock.js';
export { acquireLock, liveLockHolder, waitForFreeLock } from './lock.js';
export { openSyncFeed, type OutboxFeed } from './sync-feed.js';
