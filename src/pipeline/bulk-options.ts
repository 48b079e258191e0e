/**
 * When a stage goes through the API's CSV import endpoints, and how. The defaults come from the
 * bulk benchmark (`npm run bench:bulk`, figures in README "Bulk imports"):
 * - `minRows` 1,000: per row, 1,000 rows take 100 s at 10 req/s; by bulk about 2 s of service time
 *   plus an upload and a few polls (1, 2, 4 s …). Below that the saving is under about a minute and
 *   a half, while per-row lines carry the record id and the HTTP status of each row.
 * - `chunkRows` 5,000: about 11 s of service time each at the documented 450 rows/s; the polls
 *   (1, 2, 4, 8, then 15 s) see it ended at 15 s, the same 35 % overshoot as a 10,000-row chunk
 *   (22 s, seen at 30 s), while the client holds half as many rows: it reads and writes the next
 *   chunk while an import runs, so two chunks' rows are held (peak RSS of the 100,000-contact
 *   bench, compiled client: 343 MB at 10,000 rows per chunk, 280 MB at 5,000). A
 *   5,000-contact file is a few hundred KB, far under the 200 MB limit (which the chunk writer
 *   enforces by bytes as well); a bisection re-uploads little.
 * - `timeoutMs` 30 min per chunk: over 150 times the service time of a full chunk.
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

export const DEFAULT_BULK: BulkOptions = { mode: 'auto', minRows: 1_000, chunkRows: 5_000, timeoutMs: 30 * 60 * 1000 };
