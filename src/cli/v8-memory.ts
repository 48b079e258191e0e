import { setFlagsFromString } from 'node:v8';

/** The old generation may grow to this much more than what survived the last full collection. */
const HEAP_GROWING_PERCENT = 50;

/**
 * Two V8 settings that keep a long run's peak memory near what it really holds (README, "Memory").
 *
 * - Heap growth. A run's live set is small and steady (the rows of the chunk or window in flight,
 *   the ledger's pending batch: about 40 MB), but every row allocates a few KB that outlive the
 *   young generation (rows held while their requests or their import run). V8 lets the old
 *   generation grow up to four times its live set before a full collection, so a 100,000-row
 *   bulk import peaked at 160 MB of heap, mostly garbage. A factor of 1.5 collects sooner, at
 *   about the same CPU time.
 * - No optimising compiler for WebAssembly. The HTTP client parses answers with llhttp compiled
 *   to WebAssembly, and V8's optimising compiler took about 30 MB of native memory for a moment
 *   around the first requests: the run's peak. Its baseline compiler (Liftoff) alone parses the
 *   few KB of an API answer fast enough for 10 requests/s; `--no-wasm-tier-up` alone was not
 *   enough (measured: the moment stayed). V8 calls the flag one for testing: a function the
 *   baseline compiler cannot take is then fatal instead of handed to the optimising compiler,
 *   so it is set only on x64 and arm64, whose baseline compiler takes them all, and
 *   `node --no-liftoff-only` turns it off.
 *
 * V8 reads both when it needs them (the heap's next limit, the compilation of a WebAssembly
 * module), so setting them at start, before any request, works. A setting the operator gave on
 * the node command line is left alone (NODE_OPTIONS takes neither).
 */
export function tuneV8Memory(): void {
  const given = (flag: string) => process.execArgv.some((a) => a.includes(flag));
  if (!given('heap-growing-percent')) setFlagsFromString(`--heap-growing-percent=${HEAP_GROWING_PERCENT}`);
  // Only where the baseline compiler covers every WebAssembly instruction undici's parser uses
  // (its SIMD build included): elsewhere a function it cannot compile would stop the process.
  const liftoffComplete = process.arch === 'x64' || process.arch === 'arm64';
  if (liftoffComplete && !given('liftoff') && !given('wasm-tier-up')) setFlagsFromString('--liftoff-only');
}
