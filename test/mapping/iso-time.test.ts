import { describe, expect, it } from 'vitest';
import { Invalid } from '../../src/mapping/_converter.js';
import { isoReader } from '../../src/mapping/iso-time.js';

const H = 3_600_000;
const read = isoReader('expected an ISO date');

describe('isoReader', () => {
  it.each([
    ['2026-03-29', Date.UTC(2026, 2, 29), undefined],
    ['2026-03-29T14:30', Date.UTC(2026, 2, 29, 14, 30), undefined],
    ['2026-03-29 14:30:05', Date.UTC(2026, 2, 29, 14, 30, 5), undefined],
    ['2026-03-29T14:30:05.1', Date.UTC(2026, 2, 29, 14, 30, 5, 100), undefined],
    ['2026-03-29T14:30:05.123456789', Date.UTC(2026, 2, 29, 14, 30, 5, 123), undefined],
    ['2026-03-29T14:30Z', Date.UTC(2026, 2, 29, 14, 30), 0],
    ['2026-03-29T14:30:00-00:00', Date.UTC(2026, 2, 29, 14, 30), 0],
    ['2026-03-29T14:30+05:45', Date.UTC(2026, 2, 29, 14, 30), 5 * H + 45 * 60_000],
    ['2026-03-29T14:30-0930', Date.UTC(2026, 2, 29, 14, 30), -(9 * H + 30 * 60_000)],
    ['2026-03-29T14:30+14', Date.UTC(2026, 2, 29, 14, 30), 14 * H],
    ['2026-03-29T14:30-18:00', Date.UTC(2026, 2, 29, 14, 30), -18 * H],
  ])('%j → wall %d, offset %j', (text, wall, offset) => {
    expect(read(text)).toEqual({ wall, offset });
  });

  it.each([
    ['2026-03-29T14:30+18:30', 'expected an ISO date, got "2026-03-29T14:30+18:30" (no such offset)'],
    ['2026-03-29T14:30+05:60', 'expected an ISO date, got "2026-03-29T14:30+05:60" (no such offset)'],
    ['2026-W13-7', 'expected an ISO date, got "2026-W13-7"'],
    ['2026-088', 'expected an ISO date, got "2026-088"'],
    ['2026', 'expected an ISO date, got "2026"'],
    ['2026-03-29T14', 'expected an ISO date, got "2026-03-29T14"'],
    ['2026-03-29T14:30:05.', 'expected an ISO date, got "2026-03-29T14:30:05."'],
    ['+002026-03-29', 'expected an ISO date, got "+002026-03-29"'],
    ['２０２６-03-29', 'expected an ISO date, got "２０２６-03-29"'],
  ])('%j is refused', (text, message) => {
    expect(read(text)).toEqual(new Invalid(message));
  });
});
