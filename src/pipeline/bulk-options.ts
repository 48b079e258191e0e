import { DEFAULTS } from '../defaults.js';

/**
 * When a stage goes through the API's CSV import endpoints, and how. The defaults, and the
 * benchmark figures they come from, are in src/defaults.ts.
 */
export interface BulkOptions {
  /** `auto`: contacts and products with at least `minRows` valid rows; deals only with `always` or the mapping's `bulk: true`. */
  readonly mode: 'auto' | 'always' | 'never';
  readonly minRows: number;
  readonly chunkRows: number;
  /** How long one import is waited for before its rows are `unknown`. */
  readonly timeoutMs: number;
  /** Pauses between status polls (tests make them short). Default: the bulk client's 1, 2, 4, 8, 15 s. */
  readonly pollDelaysMs?: readonly number[];
  /** The run's clock for the pauses between polls and the timeout (tests inject one). Default: real time. */
  readonly sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  readonly now?: () => number;
}

export const DEFAULT_BULK: BulkOptions = {
  mode: DEFAULTS.bulk,
  minRows: DEFAULTS.bulkMinRows,
  chunkRows: DEFAULTS.bulkChunkRows,
  timeoutMs: DEFAULTS.bulkTimeoutMinutes * 60_000,
};
