import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isoDate, isoDateTime } from '../../src/mapping/iso-format.js';
import { MAX_INSTANT, MIN_INSTANT } from '../../src/time/calendar.js';

describe('isoDate and isoDateTime', () => {
  it.each([
    [0, '1970-01-01T00:00:00.000Z'],
    [-1, '1969-12-31T23:59:59.999Z'],
    [Date.UTC(2026, 2, 29, 1, 30), '2026-03-29T01:30:00.000Z'],
    [Date.UTC(2024, 1, 29, 23, 59, 59, 5), '2024-02-29T23:59:59.005Z'],
    [Date.UTC(2000, 2, 1), '2000-03-01T00:00:00.000Z'],
    [MIN_INSTANT, '0000-01-01T00:00:00.000Z'],
    [MAX_INSTANT, '9999-12-31T23:59:59.999Z'],
  ])('%d → %s', (ms, iso) => {
    expect(isoDateTime(ms)).toBe(iso);
    expect(isoDate(ms)).toBe(iso.slice(0, 10));
  });

  it('writes what toISOString writes, for every instant of the years 0000–9999', () => {
    fc.assert(
      fc.property(fc.integer({ min: MIN_INSTANT, max: MAX_INSTANT }), (ms) => {
        expect(isoDateTime(ms)).toBe(new Date(ms).toISOString());
      }),
      { numRuns: 20_000 },
    );
  });
});
