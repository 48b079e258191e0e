export { createSyncKeyer, entityKeyOf, knownByCells, sendsOccurrences, type SyncKey } from './sync-key.js';
export type { Classification, SyncMode } from './classify.js';
export { eventsLookResent } from './classify.js';
export { mappingHeld, resourceFingerprints } from './mapping-fingerprint.js';
export { SyncState } from './sync-state.js';
export { syncStateFile, listSyncStateFiles, stateDirBeside } from './state-file.js';
export { refuseMovedJob, sameFile } from './moved-job-state.js';
export { exportedJob, exportState, firstLineOf, importState, jobNamedIn } from './state-transfer.js';
export { catchUp, runsToApply } from './catch-up.js';
export type { LedgerSyncFeed, SyncDelta } from './ledger-feed.js';
export {
  createRunClassifier,
  createSendAllClassifier,
  type RunClassifier,
  type SourceClassifier,
} from './sync-preview.js';
