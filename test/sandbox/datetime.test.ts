import { describe, expect, it } from 'vitest';
import { isoTime, parseDate, parseDateTime } from '../../src/sandbox/datetime.js';

describe('parseDateTime (ISO 8601 as the framework reads it, answered in UTC with Z)', () => {
  it.each([
    ['2026-03-02T08:00:00Z', '2026-03-02T08:00:00.000Z'],
    ['2026-03-02T09:00:00+01:00', '2026-03-02T08:00:00.000Z'],
    ['2026-03-02T09:00+0100', '2026-03-02T08:00:00.000Z'],
    ['2026-03-02 08:00', '2026-03-02T08:00:00.000Z'],
    ['2026-03-02T08:00:00.123456Z', '2026-03-02T08:00:00.123Z'],
    ['2026-03-01T23:30:00-02:30', '2026-03-02T02:00:00.000Z'],
    ['2024-02-29T00:00:00', '2024-02-29T00:00:00.000Z'],
  ])('%s → %s', (input, want) => {
    expect(parseDateTime(input)).toBe(want);
  });

  it.each([
    '2026-02-29T00:00:00Z',
    '2026-13-01T00:00:00Z',
    '2026-03-02T24:00:00Z',
    '02/04/2026 14:05',
    '2026-03-02',
    'yesterday',
    '2026-03-02T08:00:00+25:00',
  ])('%s is not a datetime', (input) => {
    expect(parseDateTime(input)).toBeUndefined();
  });
});

describe('parseDate', () => {
  it.each([
    ['2026-05-15', '2026-05-15'],
    ['2024-02-29', '2024-02-29'],
    ['2026-02-31', undefined],
    ['15.05.2026', undefined],
    ['2026-5-15', undefined],
  ])('%s → %s', (input, want) => {
    expect(parseDate(input)).toBe(want);
  });
});

it('isoTime has milliseconds and Z (R-DEAL-9 created_at)', () => {
  expect(isoTime(Date.UTC(2026, 0, 5, 9, 0, 0, 0))).toBe('2026-01-05T09:00:00.000Z');
});
