import { describe, expect, it } from 'vitest';
import { isUnixMilliseconds, isUnixSeconds, MAX_INSTANT, MIN_INSTANT, wallTime } from '../../src/time/calendar.js';

describe('wallTime', () => {
  it.each([
    [[2026, 3, 29, 1, 30, 0, 0], '2026-03-29T01:30:00.000Z'],
    [[2024, 2, 29, 0, 0, 0, 0], '2024-02-29T00:00:00.000Z'],
    [[2000, 2, 29, 23, 59, 59, 999], '2000-02-29T23:59:59.999Z'],
    [[99, 12, 31, 0, 0, 0, 0], '0099-12-31T00:00:00.000Z'], // not 1999: Date.UTC's two-digit years
    [[0, 1, 1, 0, 0, 0, 0], '0000-01-01T00:00:00.000Z'],
    // 29 February of a leap year among 0–99, which Date.UTC's 19xx year (1900, not leap) moved to 1 March.
    [[0, 2, 29, 12, 0, 0, 0], '0000-02-29T12:00:00.000Z'],
    [[4, 2, 29, 0, 0, 0, 0], '0004-02-29T00:00:00.000Z'],
    [[9999, 12, 31, 23, 59, 59, 999], '9999-12-31T23:59:59.999Z'],
  ])('%j → %s', (fields, iso) => {
    const [y = 0, mo = 0, d = 0, h = 0, mi = 0, s = 0, ms = 0] = fields;
    expect(new Date(wallTime(y, mo, d, h, mi, s, ms) as number).toISOString()).toBe(iso);
  });

  it.each([
    [[10000, 1, 1, 0, 0, 0, 0], 'no such year'],
    [[2026, 0, 1, 0, 0, 0, 0], 'no such month'],
    [[2026, 13, 1, 0, 0, 0, 0], 'no such month'],
    [[2026, 2, 29, 0, 0, 0, 0], 'no such day'],
    [[1900, 2, 29, 0, 0, 0, 0], 'no such day'],
    [[2026, 4, 31, 0, 0, 0, 0], 'no such day'],
    [[2026, 4, 0, 0, 0, 0, 0], 'no such day'],
    [[2026, 4, 1, 24, 0, 0, 0], 'no such hour'],
    [[2026, 4, 1, 0, 60, 0, 0], 'no such minute'],
    [[2026, 4, 1, 0, 0, 60, 0], 'no such second'],
  ])('%j → %s', (fields, reason) => {
    const [y = 0, mo = 0, d = 0, h = 0, mi = 0, s = 0, ms = 0] = fields;
    expect(wallTime(y, mo, d, h, mi, s, ms)).toBe(reason);
  });

  it('bounds instants to the years 0000–9999', () => {
    expect(new Date(MIN_INSTANT).toISOString()).toBe('0000-01-01T00:00:00.000Z');
    expect(new Date(MAX_INSTANT).toISOString()).toBe('9999-12-31T23:59:59.999Z');
  });
});

describe('UNIX time within years 0000–9999', () => {
  it.each([
    [0, true, false],
    [-86_400, true, false],
    [1_767_604_364, true, false],
    [1_767_604_364_000, false, true],
    [1_767_604_364.5, false, false],
    ['1767604364', false, false],
    [Math.floor(MAX_INSTANT / 1000) + 1, false, true],
    [MIN_INSTANT / 1000 - 1, false, true],
    [MAX_INSTANT + 1, false, false],
  ])('%j: seconds %s, milliseconds %s', (n, seconds, ms) => {
    expect(isUnixSeconds(n)).toBe(seconds);
    expect(!seconds && isUnixMilliseconds(n)).toBe(ms);
  });
});
