/**
 * The seeded whole-import fault (`bulkFailRate`): a fraction of the accepted imports stop
 * part-way with status `failed`. Its own PRNG, derived from the sandbox's seed, so turning it on
 * does not shift the per-request faults (`failRate`, `dropRate`) a seed gives.
 */
import { mulberry32 } from '../faults.js';

/** Mixed into the seed so the two PRNGs draw different sequences. */
const SALT = 0x6b756c6b;

/** Answers, per import of `rows` rows, after how many rows it fails, or undefined (two draws per import). */
export function importFaultDice(seed: number, failRate: () => number): (rows: number) => number | undefined {
  const random = mulberry32((seed ^ SALT) >>> 0);
  return (rows) => {
    const u = random();
    const where = random();
    return u < failRate() ? Math.floor(where * rows) : undefined;
  };
}
