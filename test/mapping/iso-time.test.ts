import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Invalid } from '../../src/mapping/_converter.js';
import { isoReader } from '../../src/mapping/iso-time.js';
import { badTime, type TimeReader } from '../../src/mapping/written-time.js';
import { wallTime } from '../../src/time/calendar.js';

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

  it('reads every text exactly as the grammar written as a regular expression does', () => {
    const oracle = regexIsoReader('expected an ISO date');
    // Timestamps built part by part, each part mostly right, sometimes missing or slightly wrong:
    // the near misses a hand-written reader gets wrong. Plus shuffled pieces and arbitrary text.
    const part = (right: string[], wrong: string[]) =>
      fc.oneof(
        { weight: 6, arbitrary: fc.constantFrom(...right) },
        { weight: 1, arbitrary: fc.constantFrom(...wrong) },
      );
    const built = fc
      .tuple(
        part(
          ['2026-03-29', '0099-12-31', '2024-02-29'],
          ['2026-02-29', '2026-13-01', '2026-3-29', '202603-29', '2026-03-2'],
        ),
        part(['T', 't', ' '], ['', 'x', 'TT']),
        part(['14', '00', '23'], ['1', '24', '', '٣4']),
        part([':'], ['', '.']),
        part(['30', '59'], ['3', '60', '']),
        part([':05', ':59', ''], [':5', ':60', ':']),
        part(['.', ',', ''], [':', '..']),
        fc.stringMatching(/^[0-9]{0,11}$/),
        part(['', '', ' '], ['  ', 'T', ':']),
        part(
          ['Z', 'z', '+05', '-0530', '+05:30', '-18:00', '-00:00', '+14', ''],
          ['+18:30', '+05:60', '+05:', '+053', '+05:3', '+5', 'T', 'x', 'Zz', '+05::30'],
        ),
        part([''], ['x', ' ', '0']),
      )
      .map((parts) => parts.join(''));
    const piece = fc.constantFrom(
      '2026',
      '-',
      '03',
      '29',
      'T',
      ' ',
      '14',
      ':',
      '30',
      '.',
      ',',
      '123',
      'Z',
      '+',
      '05',
      'x',
    );
    // Every prefix of a timestamp too: where a hand-written reader forgets to check for the end.
    const cut = fc.tuple(built, fc.nat()).map(([t, n]) => t.slice(0, n % (t.length + 1)));
    const text = fc.oneof(
      { weight: 4, arbitrary: built },
      { weight: 2, arbitrary: cut },
      fc.array(piece, { maxLength: 14 }).map((p) => p.join('')),
      fc.string({ maxLength: 30 }),
    );
    fc.assert(
      fc.property(text, (t) => {
        expect(read(t)).toEqual(oracle(t));
      }),
      { numRuns: 20_000 },
    );
  });
});

/** The reader as it was first written, with the grammar as a regular expression: the oracle. */
function regexIsoReader(expected: string): TimeReader {
  const ISO =
    /^(\d{4})-(\d{2})-(\d{2})(?:[Tt ](\d{2}):(\d{2})(?::(\d{2})(?:[.,](\d{1,9}))?)?(?: ?([Zz]|[+-]\d{2}(?::?\d{2})?))?)?$/;
  const num = (digits: string | undefined): number => (digits === undefined ? 0 : Number(digits));
  const offsetOf = (text: string): number | undefined => {
    if (text === 'Z' || text === 'z') return 0;
    const hours = Number(text.slice(1, 3));
    const minutes = Number(text.slice(text.charAt(3) === ':' ? 4 : 3) || '0');
    if (hours > 18 || minutes > 59 || (hours === 18 && minutes > 0)) return undefined;
    const size = hours * H + minutes * 60_000;
    return text.charAt(0) === '-' ? -size + 0 : size;
  };
  return (text) => {
    const m = ISO.exec(text);
    if (m === null) return badTime(expected, text);
    const fraction = m[7];
    const ms =
      fraction === undefined ? 0 : Number(fraction.length >= 3 ? fraction.slice(0, 3) : fraction.padEnd(3, '0'));
    const wall = wallTime(num(m[1]), num(m[2]), num(m[3]), num(m[4]), num(m[5]), num(m[6]), ms);
    if (typeof wall === 'string') return badTime(expected, text, wall);
    const offsetText = m[8];
    if (offsetText === undefined) return { wall, offset: undefined };
    const offset = offsetOf(offsetText);
    if (offset === undefined) return badTime(expected, text, 'no such offset');
    return { wall, offset };
  };
}
