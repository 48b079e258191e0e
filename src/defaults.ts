/**
 * Every default of the tool's own options, in one table and in the units the command line uses.
 * The yargs builders (src/cli) show these in `--help`, and the layers that take the same settings
 * as plain options (transport, pipeline, resources, init) fall back to the same entries, so a
 * number lives in one place. It imports nothing, so every folder may read it.
 *
 * The sandbox's settings are not here: it plays the service, and its defaults (the API's own rate
 * limit, faults, import speed) stay in src/sandbox/options.ts, apart from the client's, so that a
 * change to a client default cannot hide behind the same change in the service it is tested against.
 */
export const DEFAULTS = {
  /** `--report`: the report CSV, one line per input row (relative to the working directory). */
  report: 'out/report.csv',
  /** `--rate`: requests per second; the API allows 10 per key (docs/api-contract.md R-RATE-1). */
  rate: 10,
  /** `--deal-update-method`: the API accepts PATCH and PUT for a deal update by id. */
  dealUpdateMethod: 'PATCH',
  /** `--notify-on`: notify only when the exit code is not 0. */
  notifyOn: 'failure',
  /** `--concurrency`: requests in flight; 4 holds 10 requests/s at 300 ms latency. */
  concurrency: 4,
  /** `--max-attempts`: attempts per request on 5xx and network errors, the first one included. */
  maxAttempts: 5,
  /** `--in-doubt`: a non-idempotent row whose request may have been applied is never resent, but reported `unknown`. */
  inDoubt: 'unknown',
  /** `--max-pause`, in seconds: a longer 429 pause stops the run (to resume later) instead of waiting. */
  maxPauseSeconds: 300,
  /** `--request-timeout`, in seconds: how long an answer is waited for. */
  requestTimeoutSeconds: 30,
  /**
   * `--lock-wait`, in seconds: how long `import` and `resume` wait for a state directory another
   * process holds before refusing. A preview's catch-up or a state command holds it a moment; a
   * run in progress holds it for its whole length, and a minute is soon enough to say so.
   */
  lockWaitSeconds: 60,
  /** `--state-dir`: the folder of run ledgers and sync states, beside the job file (`resume` without a job: in the working directory). */
  stateDir: '.engage-import',
  /**
   * `--bulk`, `--bulk-min-rows`, `--bulk-chunk-rows`, `--bulk-timeout` (minutes). From the bulk
   * benchmark (`npm run bench:bulk`, figures in README "Bulk imports"):
   * - 1,000 rows: per row they take 100 s at 10 requests/s, by bulk about 2 s of service time plus
   *   an upload and a few polls; below that the saving is under about a minute and a half, while
   *   per-row report lines carry each row's record id and HTTP status.
   * - 5,000 rows a chunk: about 11 s of service time at the documented 450 rows/s
   *   (docs/api-contract.md R-BULK-10), seen ended at 11.5 s by the polls (their backoff shortened
   *   by the import's progress): a million rows take the same 38 minutes of imports as in
   *   10,000-row chunks (22.2 s, seen at 23 s), while the client holds half as many rows: it
   *   reads and writes the next chunk while an import runs, so two chunks' rows are held (peak
   *   RSS of the 100,000-contact bench: 343 MB at 10,000 rows a chunk, 261 to 278 MB at 5,000).
   *   A 5,000-contact file is a few hundred KB, far under the 200 MB limit (the chunk writer also
   *   counts bytes); a bisection re-uploads little.
   * - 30 minutes per chunk: over 150 times the service time of a full chunk.
   */
  bulk: 'auto',
  bulkMinRows: 1_000,
  bulkChunkRows: 5_000,
  bulkTimeoutMinutes: 30,
  /** `init --out`: the mapping file written. */
  initOut: 'mapping.yaml',
  /** `init --sample`: rows read to guess the columns' types. */
  initSample: 1000,
  /** `sandbox --port` (the sandbox's own default, for tests, is 0: any free port). */
  sandboxPort: 8787,
} as const;
