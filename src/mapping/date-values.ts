import { isUnixMilliseconds, isUnixSeconds, MAX_INSTANT, MIN_INSTANT } from '../time/calendar.js';
import { quote, show } from '../text/show.js';
import { Invalid, type Converter } from './_converter.js';
import { formatReader } from './format-time.js';
import { isoDate, isoDateTime } from './iso-format.js';
import { isoReader } from './iso-time.js';
import type { TimeReader } from './written-time.js';
import { ZoneClock } from './zone-clock.js';

/** The date options of a field (`ResolvedField`). */
export interface DateSpec {
  /** Pattern in luxon tokens (`dd.MM.yyyy HH:mm`), or `x` (UNIX milliseconds) or `X` (seconds). Default: ISO 8601. */
  readonly format?: string | undefined;
  /** IANA zone a time without an offset is read in. Default `UTC` (resolved by the loader). */
  readonly timezone: string;
}

const ISO_DATE_TIME = 'an ISO 8601 date-time such as 2026-03-29T14:30:00Z';
const EPOCH_FORMATS: Readonly<Record<string, string>> = { x: 'UNIX time in milliseconds', X: 'UNIX time in seconds' };

/** `expected …` for a cell read with `format`: the format itself, or what the epoch tokens mean. */
const asFormat = (what: string, format: string): string =>
  Object.hasOwn(EPOCH_FORMATS, format) ? `expected ${EPOCH_FORMATS[format]}` : `expected ${what} as ${format}`;

function reader(spec: DateSpec, expected: string): TimeReader {
  return spec.format === undefined ? isoReader(expected) : formatReader(spec.format, expected);
}

/**
 * `instant` for `datetime` and `unix`: a written offset wins; otherwise the time is local to the
 * zone. A local time the clocks skip (`2026-03-29 02:30` in Europe/Warsaw) is an error rather than
 * a silent shift by an hour; a time that happens twice takes its first occurrence (ZoneClock).
 */
function instantReader(spec: DateSpec, expected: string): (text: string) => number | Invalid {
  const read = reader(spec, expected);
  const clock = new ZoneClock(spec.timezone);
  return (text) => {
    const written = read(text);
    if (written instanceof Invalid) return written;
    const instant = written.offset === undefined ? clock.instantOf(written.wall) : written.wall - written.offset;
    if (instant === undefined)
      return new Invalid(`${quote(text)} does not exist in ${clock.name} (the clocks skip it)`);
    if (instant < MIN_INSTANT || instant > MAX_INSTANT)
      return new Invalid(`${expected}, got ${quote(text)} (no such year)`);
    return instant;
  };
}

/**
 * `date` → `YYYY-MM-DD`. The date is the calendar date written in the cell: a time or an offset
 * after it is checked but does not move it to another day, so `timezone` plays no part and a
 * date never shifts, whatever the machine's or the field's zone.
 */
export function dateValue(spec: DateSpec): Converter {
  const expected = spec.format === undefined ? 'expected a date as YYYY-MM-DD' : asFormat('a date', spec.format);
  const read = reader(spec, expected);
  return {
    text(text) {
      const written = read(text);
      return written instanceof Invalid ? written : isoDate(written.wall);
    },
    scalar: (value) => new Invalid(`${expected}, got ${show(value)}`),
  };
}

/** `datetime` → ISO 8601 in UTC with milliseconds: `2026-03-29T01:30:00.000Z`. */
export function datetimeValue(spec: DateSpec): Converter {
  const expected = spec.format === undefined ? `expected ${ISO_DATE_TIME}` : asFormat('a date-time', spec.format);
  const read = instantReader(spec, expected);
  return {
    text(text) {
      const instant = read(text);
      return instant instanceof Invalid ? instant : isoDateTime(instant);
    },
    scalar: (value) => new Invalid(`${expected}, got ${show(value)}`),
  };
}

const INTEGER = /^[+-]?\d+$/;

function seconds(n: number, shown: string): number | Invalid {
  if (isUnixSeconds(n)) return n + 0;
  // Milliseconds are not the seconds the API wants (docs/api-contract.md R-EVENT-1); `format: x` reads them.
  return new Invalid(
    `expected UNIX time in seconds, got ${shown}${isUnixMilliseconds(n) ? ' (milliseconds? read them with `format: x`)' : ''}`,
  );
}

/**
 * `unix` → integer seconds since 1970 (the events' and product events' `timestamp`: docs/api-contract.md R-EVENT-1, R-PEVT-3). Without a `format`, a cell
 * of digits is taken as seconds already; any other text is read like `datetime`. With a format,
 * every cell is read with it (so `yyyyMMdd` is not mistaken for seconds). Fractions of a second
 * are dropped (floor): an event is never dated after it happened.
 */
export function unixValue(spec: DateSpec): Converter {
  const expected =
    spec.format === undefined ? `expected UNIX seconds or ${ISO_DATE_TIME}` : asFormat('a date-time', spec.format);
  const read = instantReader(spec, expected);
  const digitsAreSeconds = spec.format === undefined;
  return {
    text(text) {
      if (digitsAreSeconds && INTEGER.test(text)) return seconds(Number(text), quote(text));
      const instant = read(text);
      return instant instanceof Invalid ? instant : Math.floor(instant / 1000);
    },
    scalar: (value) =>
      typeof value === 'number' ? seconds(value, show(value)) : new Invalid(`${expected}, got ${show(value)}`),
  };
}
