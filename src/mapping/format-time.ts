import { DateTime } from 'luxon';
import { ConfigError } from '../errors.js';
import { MAX_INSTANT, MIN_INSTANT, wallTime } from '../time/calendar.js';
import { badTime, type TimeReader } from './written-time.js';

const MINUTE = 60_000;

// Month and weekday names are read in English and digits in Latin script whatever the machine's
// locale, so a mapping file reads the same cells the same way everywhere.
const LOCALE = { locale: 'en-US', numberingSystem: 'latn' } as const;
// Zone UTC with setZone: the fields come back exactly as written (UTC has no gaps), and a written
// offset (`ZZ`) is kept rather than applied. The machine's zone is never consulted.
const PARSE = { ...LOCALE, zone: 'UTC', setZone: true } as const;

interface FormatToken {
  readonly literal: boolean;
  readonly val: string;
}

/** Split a luxon format into tokens exactly as luxon's `Formatter.parseFormat` does (quotes, runs). */
function tokensOf(format: string): FormatToken[] {
  const tokens: FormatToken[] = [];
  let current: string | null = null;
  let run = '';
  let quoted = false;
  for (let i = 0; i < format.length; i++) {
    const c = format.charAt(i);
    if (c === "'") {
      if (run.length > 0 || quoted) tokens.push({ literal: quoted || /^\s+$/.test(run), val: run === '' ? "'" : run });
      current = null;
      run = '';
      quoted = !quoted;
    } else if (quoted) {
      run += c;
    } else if (c === current) {
      run += c;
    } else {
      if (run.length > 0) tokens.push({ literal: /^\s+$/.test(run), val: run });
      run = c;
      current = c;
    }
  }
  if (run.length > 0) tokens.push({ literal: quoted || /^\s+$/.test(run), val: run });
  return tokens;
}

// Slots of the fast path's fields: year, month, day, hour, minute, second, millisecond.
const NUMERIC: Readonly<Record<string, readonly [slot: number, pattern: string]>> = {
  y: [0, '\\d{1,6}'],
  yyyy: [0, '\\d{4}'],
  M: [1, '\\d{1,2}'],
  MM: [1, '\\d{2}'],
  d: [2, '\\d{1,2}'],
  dd: [2, '\\d{2}'],
  H: [3, '\\d{1,2}'],
  HH: [3, '\\d{2}'],
  m: [4, '\\d{1,2}'],
  mm: [4, '\\d{2}'],
  s: [5, '\\d{1,2}'],
  ss: [5, '\\d{2}'],
  S: [6, '\\d{1,3}'],
  SSS: [6, '\\d{3}'],
};

const escapeRegExp = (text: string): string => text.replace(/[-[\]{}()*+?.,\\^$|#/\s]/g, '\\$&');

/**
 * The common all-digit formats (`dd.MM.yyyy HH:mm`) read with one precompiled regex instead of
 * luxon's general parser, which costs about 10 µs a cell. Same token meanings as luxon (a
 * differential property test holds them equal); `undefined` for anything else (names of months,
 * 12-hour clocks, offsets), which luxon reads.
 */
function numericReader(tokens: readonly FormatToken[], expected: string): TimeReader | undefined {
  let source = '^';
  const slots: number[] = [];
  for (const t of tokens) {
    if (t.literal || !/^[A-Za-z]/.test(t.val)) {
      source += escapeRegExp(t.val);
      continue;
    }
    const unit = NUMERIC[t.val];
    if (unit === undefined || slots.includes(unit[0])) return undefined;
    slots.push(unit[0]);
    source += `(${unit[1]})`;
  }
  if (![0, 1, 2].every((slot) => slots.includes(slot))) return undefined;
  const regex = new RegExp(`${source}$`, 'i');
  const fields = [0, 1, 1, 0, 0, 0, 0]; // reused: readers run synchronously, one cell at a time
  return (text) => {
    const m = regex.exec(text);
    if (m === null) return badTime(expected, text);
    fields.fill(0, 3);
    for (let i = 0; i < slots.length; i++) fields[slots[i] ?? 0] = Number(m[i + 1]);
    const [year = 0, month = 0, day = 0, hour = 0, minute = 0, second = 0, ms = 0] = fields;
    const wall = wallTime(year, month, day, hour, minute, second, ms);
    return typeof wall === 'string' ? badTime(expected, text, wall) : { wall, offset: undefined };
  };
}

/**
 * luxon's tokens for a whole cell of UNIX time: `x` milliseconds (what JavaScript and Java clocks
 * print), `X` seconds. Read here rather than by luxon, which cannot read them back in
 * `checkDateFormat`'s round trip: ms per unit.
 */
const EPOCH_UNITS: Readonly<Record<string, number>> = { x: 1, X: 1000 };
const INTEGER = /^[+-]?\d+$/;

/** Cells of whole UNIX time units, years 0000–9999; the instant carries offset 0 (it is UTC by definition). */
function epochReader(unit: number, expected: string): TimeReader {
  return (text) => {
    if (!INTEGER.test(text)) return badTime(expected, text);
    const wall = Number(text) * unit + 0; // + 0: `-0` is 0
    if (!Number.isSafeInteger(wall) || wall < MIN_INSTANT || wall > MAX_INSTANT)
      return badTime(expected, text, 'no such year');
    return { wall, offset: 0 };
  };
}

/**
 * Why a `format` cannot be used for dates, or `undefined` when it can: for the config loader.
 * A format must carry a full date: luxon fills a missing year from today's date, which would make
 * the same file map differently next year. Checked by writing a known date with the format and
 * reading it back.
 */
export function checkDateFormat(format: string): string | undefined {
  if (Object.hasOwn(EPOCH_UNITS, format)) return undefined;
  const probe = DateTime.fromObject(
    { year: 2031, month: 7, day: 15, hour: 13, minute: 45, second: 7 },
    { ...LOCALE, zone: 'UTC' },
  );
  let back: DateTime;
  try {
    back = DateTime.fromFormat(probe.toFormat(format), format, PARSE);
  } catch (error) {
    return `date format ${JSON.stringify(format)} cannot be used: ${(error as Error).message}`;
  }
  if (!back.isValid)
    return `date format ${JSON.stringify(format)} cannot read back the dates it writes (check the luxon tokens, e.g. dd.MM.yyyy HH:mm)`;
  if (back.year !== 2031 || back.month !== 7 || back.day !== 15) {
    return `date format ${JSON.stringify(format)} lacks a year, month or day (e.g. dd.MM.yyyy)`;
  }
  return undefined;
}

/**
 * Reads cells written in `format` (luxon tokens, `dd.MM.yyyy HH:mm`). An offset in the format
 * (`ZZ`) or a zone name (`z`) is kept in `offset`; otherwise the time is local to the field's zone.
 * @throws ConfigError when the format is unusable (see `checkDateFormat`).
 */
export function formatReader(format: string, expected: string): TimeReader {
  if (Object.hasOwn(EPOCH_UNITS, format)) return epochReader(EPOCH_UNITS[format]!, expected);
  const problem = checkDateFormat(format);
  if (problem !== undefined) throw new ConfigError('CONFIG_INVALID', problem);
  const tokens = tokensOf(format);
  const fast = numericReader(tokens, expected);
  if (fast !== undefined) return fast;
  const parser = DateTime.buildFormatParser(format, LOCALE);
  const zoned = tokens.some((t) => !t.literal && /^[Zz]/.test(t.val));
  return (text) => {
    let dt: DateTime;
    try {
      dt = DateTime.fromFormatParser(text, parser, PARSE);
    } catch {
      // luxon throws on some inputs (`PM` with a 24-hour `HH`); a bad cell is data, not a crash.
      return badTime(expected, text);
    }
    if (!dt.isValid) {
      const unit =
        dt.invalidReason === 'unit out of range' ? /as an? (\w+)/.exec(dt.invalidExplanation ?? '')?.[1] : undefined;
      return badTime(expected, text, unit === undefined ? undefined : `no such ${unit}`);
    }
    const wall = wallTime(dt.year, dt.month, dt.day, dt.hour, dt.minute, dt.second, dt.millisecond);
    if (typeof wall === 'string') return badTime(expected, text, wall);
    return { wall, offset: zoned ? dt.offset * MINUTE : undefined };
  };
}
