/**
 * Property tests draw the same cases on every run, so that `npm test` in CI passes or fails the
 * same way each time. `FC_SEED=<n>` runs them on another seed (a failure prints the seed that
 * reproduces it); exploring other seeds is how the year-0000 leap day was found.
 */
import fc from 'fast-check';

const seed = Number(process.env['FC_SEED'] ?? 20261125);
fc.configureGlobal({ seed: Number.isFinite(seed) ? seed : 20261125 });
