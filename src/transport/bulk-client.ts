/**
 * The client of the bulk CSV import endpoints: upload one chunk file (bulk-upload.ts), then poll
 * its status until it ends (bulk-wait.ts). Both go through the run's `Transport`, so they share its
 * rate limit, 429 pauses (`retry-after`), retries, auth headers and key redaction; the upload is a
 * `FormData` with the file as a `Blob` (`fs.openAsBlob` streams it from disk, and can be read again
 * for a retry).
 */
import { setTimeout as delay } from 'node:timers/promises';
import { DEFAULTS } from '../defaults.js';
import { uploadChunk, type UploadRequest, type UploadOutcome } from './bulk-upload.js';
import { waitForImport, type WaitOutcome } from './bulk-wait.js';
import type { Transport } from './types.js';

export type { BulkKind, UploadOutcome } from './bulk-upload.js';
export type { WaitOutcome } from './bulk-wait.js';

/** Pauses between two status polls: 1, 2, 4, 8, then 15 s again and again. */
export const DEFAULT_POLL_DELAYS_MS: readonly number[] = [1000, 2000, 4000, 8000, 15_000];
/** How long one import is waited for before its rows are given up as unknown. */
export const DEFAULT_BULK_TIMEOUT_MS = DEFAULTS.bulkTimeoutMinutes * 60_000;

export interface BulkClientOptions {
  readonly transport: Pick<Transport, 'send'>;
  /** Must reject (or resolve) early when `signal` aborts. Default: `setTimeout` from `node:timers/promises`. */
  readonly sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  /** Default `Date.now`. */
  readonly now?: () => number;
  /** Stops waiting (the run was interrupted); the import goes on at the service. */
  readonly signal?: AbortSignal;
  /** Pauses between polls; the last one repeats. Default `DEFAULT_POLL_DELAYS_MS`. */
  readonly pollDelaysMs?: readonly number[];
  /** Default `DEFAULT_BULK_TIMEOUT_MS` (30 min). */
  readonly timeoutMs?: number;
}

export interface BulkClient {
  upload(request: UploadRequest): Promise<UploadOutcome>;
  /** Polls `GET /import/status/?import_id=` with backoff until the import ends, the timeout passes, or the run stops. */
  waitForImport(importId: string): Promise<WaitOutcome>;
}

export function createBulkClient(options: BulkClientOptions): BulkClient {
  const { transport, signal } = options;
  const now = options.now ?? Date.now;
  const sleep = options.sleep ?? ((ms: number, s?: AbortSignal) => delay(ms, undefined, s ? { signal: s } : {}));
  const delays = options.pollDelaysMs ?? DEFAULT_POLL_DELAYS_MS;
  const timeoutMs = options.timeoutMs ?? DEFAULT_BULK_TIMEOUT_MS;
  if (delays.length === 0 || delays.some((d) => !(d >= 0)))
    throw new RangeError('pollDelaysMs: at least one pause, each 0 or more');

  const wait = { transport, sleep, now, signal, delays, timeoutMs };
  return {
    upload: (request) => uploadChunk(transport, request),
    waitForImport: (importId) => waitForImport(wait, importId),
  };
}
