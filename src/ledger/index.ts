export { createRun, openForResume } from './ledger.js';
export type { Ledger, LedgerEntry, OpenLedger, OutboxKey, Outcome } from './types.js';
export { findLatestRun, findUnfinishedRun, readRun, stateDirOf, RUNS_FOLDER } from './run-dirs.js';
export { hashFile } from './hash-file.js';
export { identityChanges } from './identity.js';
export type { RunIdentity } from './identity.js';
export type { StateLock } from './lock.js';
export { acquireLock, liveLockHolder, waitForFreeLock } from './lock.js';
export { openSyncFeed } from './sync-feed.js';
