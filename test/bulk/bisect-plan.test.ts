import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { planBisection } from '../../src/bulk/bisect-plan.js';

const range = (n: number, from = 0) => Array.from({ length: n }, (_, i) => from + i);

describe('planBisection', () => {
  it('nothing unknown: nothing to upload', () => {
    expect(planBisection([], 3)).toEqual([]);
  });

  it('no unnamed failure (an import that ended without finishing): the rows again as one chunk', () => {
    expect(planBisection([4, 5, 9], 0)).toEqual([[4, 5, 9]]);
  });

  it('a few unnamed failures: two halves, consecutive, in order', () => {
    expect(planBisection(range(10, 50), 3)).toEqual([range(5, 50), range(5, 55)]);
  });

  it('120 unnamed failures in 9,950 rows: 5 parts, each expected to hold about 24 (under half the listing limit)', () => {
    const parts = planBisection(range(9950), 120);
    expect(parts.map((p) => p.length)).toEqual([1990, 1990, 1990, 1990, 1990]);
  });

  it('never more parts than rows: single rows at the end', () => {
    expect(planBisection([7, 8, 9], 500)).toEqual([[7], [8], [9]]);
  });

  it('property: the parts are the unknown rows, in order, each strictly smaller than the whole when there are failures', () => {
    fc.assert(
      fc.property(
        fc.uniqueArray(fc.nat(10_000), { minLength: 1, maxLength: 400 }),
        fc.integer({ min: 1, max: 1000 }),
        (rows, failures) => {
          const sorted = [...rows].sort((a, b) => a - b);
          const parts = planBisection(sorted, failures);
          expect(parts.flat()).toEqual(sorted);
          expect(parts.every((p) => p.length > 0)).toBe(true);
          if (sorted.length > 1) expect(Math.max(...parts.map((p) => p.length))).toBeLessThan(sorted.length);
        },
      ),
    );
  });
});
