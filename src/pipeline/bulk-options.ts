/**
 * When a stage goes through the API's CSV import endpoints, and how. The defaults come from the
 * bulk benchmark (`npm run bench:bulk`, figures in README "Bulk imports"):
 * - `minRows` 1,000: per row, 1,000 rows take 100 s at 10 req/s; by bulk about 2 s of service time
 *   plus an upload and a few polls (1, 2, 4 s …). Below that the saving is under about a minute and
 *   a half, while per-row lines carry the record id and the HTTP status of each row.
 * - `chunkRows` 10,000: about 22 s of service time each at the documented 450 rows/s, so a
 *   chunk's progress shows and a bisection re-uploads little; a 10,000-contact file is a few MB,
 *   far under the 200 MB limit (which the chunk writer enforces by bytes as well).
 * - `timeoutMs` 30 min per chunk: 45 times the service time of a full chunk.
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

export const DEFAULT_BULK: BulkOptions = { mode: 'auto', minRows: 1_000, chunkRows: 10_000, timeoutMs: 30 * 60 * 1000 };
