import fc from 'fast-check';
import { DateTime } from 'luxon';
import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/errors.js';
import { Invalid } from '../../src/mapping/_converter.js';
import { checkDateFormat, formatReader } from '../../src/mapping/format-time.js';

describe('checkDateFormat', () => {
  it.each([
    ['dd.MM.yyyy', undefined],
    ['yyyy-MM-dd HH:mm', undefined],
    ["yyyy-MM-dd'T'HH:mm:ss.SSSZZ", undefined],
    ['MMM d, yyyy h:mm a', undefined],
    ['dd.MM.yy', undefined],
    ['HH:mm', 'date format "HH:mm" lacks a year, month or day (e.g. dd.MM.yyyy)'],
    ['dd.MM', 'date format "dd.MM" lacks a year, month or day (e.g. dd.MM.yyyy)'],
    ['MM/yyyy', 'date format "MM/yyyy" lacks a year, month or day (e.g. dd.MM.yyyy)'],
    [
      'yyyy-MM-dd HH:mm a',
      'date format "yyyy-MM-dd HH:mm a" cannot be used: Can\'t include meridiem when specifying 24-hour format',
    ],
  ])('%j → %j', (format, message) => {
    expect(checkDateFormat(format)).toBe(message);
  });

  it('formatReader refuses an unusable format with a config error', () => {
    expect(() => formatReader('HH:mm', 'expected a date')).toThrow(ConfigError);
  });
});

describe('formatReader', () => {
  it.each([
    ['dd.MM.yyyy', '15.05.2026', Date.UTC(2026, 4, 15), undefined],
    ['d.M.yyyy H:m:s', '5.6.2026 7:8:9', Date.UTC(2026, 5, 5, 7, 8, 9), undefined],
    ["yyyy-MM-dd'T'HH:mm:ss.SSS", '2026-03-29T01:30:00.250', Date.UTC(2026, 2, 29, 1, 30, 0, 250), undefined],
    ["yyyy-MM-dd'T'HH:mm", '2026-03-29t01:30', Date.UTC(2026, 2, 29, 1, 30), undefined],
    ['yyyy-MM-dd HH:mm ZZ', '2026-03-29 03:30 +02:00', Date.UTC(2026, 2, 29, 3, 30), 2 * 3_600_000],
    ['yyyy-MM-dd HH:mm z', '2026-07-01 12:00 Europe/Warsaw', Date.UTC(2026, 6, 1, 12), 2 * 3_600_000],
    ['MMMM d, yyyy', 'march 29, 2026', Date.UTC(2026, 2, 29), undefined],
  ])('%j reads %j', (format, text, wall, offset) => {
    expect(formatReader(format, 'expected x')(text)).toEqual({ wall, offset });
  });

  it.each([
    ['dd.MM.yyyy', '15.05.2026 ', 'expected a date as dd.MM.yyyy, got "15.05.2026 "'],
    ['dd.MM.yyyy', '15-05-2026', 'expected a date as dd.MM.yyyy, got "15-05-2026"'],
    ['dd.MM.yyyy', '5.5.2026', 'expected a date as dd.MM.yyyy, got "5.5.2026"'],
    ['dd.MM.yyyy', '29.02.2026', 'expected a date as dd.MM.yyyy, got "29.02.2026" (no such day)'],
    ['dd.MM.yyyy', '01.13.2026', 'expected a date as dd.MM.yyyy, got "01.13.2026" (no such month)'],
    [
      'dd.MM.yyyy HH:mm',
      '01.01.2026 24:00',
      'expected a date as dd.MM.yyyy HH:mm, got "01.01.2026 24:00" (no such hour)',
    ],
    ['MMM d, yyyy', 'Feb 29, 2026', 'expected a date as MMM d, yyyy, got "Feb 29, 2026" (no such day)'],
    ['MM/dd/yyyy h:mm a', '02/04/2026 14:05', 'expected a date as MM/dd/yyyy h:mm a, got "02/04/2026 14:05"'],
  ])('%j refuses %j', (format, text, message) => {
    expect(formatReader(format, `expected a date as ${format}`)(text)).toEqual(new Invalid(message));
  });

  // The all-digit formats are read by a regex of our own instead of luxon (for speed): both must
  // agree on every input. Hour 24 is the one deliberate difference (luxon rolls it to the next day).
  const formats = [
    'dd.MM.yyyy',
    'd.M.yyyy',
    'yyyy-MM-dd HH:mm',
    'd/M/y H:m:s',
    "yyyy-MM-dd'T'HH:mm:ss.SSS",
    'yyyyMMdd',
    'MM/dd/yyyy HH:mm:ss.S',
    'dd MM yyyy',
  ];
  const digits = (min: number, max: number) =>
    fc
      .integer({ min, max })
      .chain((n) => fc.constantFrom(String(n), String(n).padStart(2, '0'), String(n).padStart(4, '0')));
  const written = fc
    .record({
      y: digits(0, 12000),
      M: digits(0, 13),
      d: digits(0, 32),
      H: digits(0, 23),
      m: digits(0, 60),
      s: digits(0, 60),
      S: digits(0, 1000),
    })
    .map(
      ({ y, M, d, H, m, s, S }) =>
        (format: string) =>
          format
            .replace(/'T'/, 'T')
            .replace(/y+|M+|d+|H+|m+|s+|S+/g, (t) => ({ y, M, d, H, m, s, S })[t.charAt(0) as 'y'] ?? t),
    );

  it('reads all-digit formats exactly as luxon does', () => {
    fc.assert(
      fc.property(fc.constantFrom(...formats), written, (format, write) => {
        const text = write(format);
        const ours = formatReader(format, 'expected a date')(text);
        const luxon = DateTime.fromFormat(text, format, { zone: 'UTC', setZone: true, locale: 'en-US' });
        if (luxon.isValid && luxon.year <= 9999) {
          expect(ours).toEqual({ wall: luxon.toMillis(), offset: undefined });
        } else {
          expect(ours).toBeInstanceOf(Invalid);
        }
      }),
      { numRuns: 3000 },
    );
  });
});
