import { parseValue, type ValueSpec } from '../mapping/parse-value.js';

/** How a date-like column reads: ISO 8601 (no format needed), one luxon format, or two readings. */
export type DateGuess =
  | { readonly kind: 'iso'; readonly withTime: boolean }
  | { readonly kind: 'format'; readonly format: string; readonly withTime: boolean }
  | {
      readonly kind: 'ambiguous';
      readonly formats: readonly [string, string];
      readonly example: string;
      readonly readings: readonly [string, string];
      readonly withTime: boolean;
    };

const DAY_FIRST = ['dd.MM.yyyy', 'd.M.yyyy', 'dd/MM/yyyy', 'd/M/yyyy', 'dd-MM-yyyy'];
const MONTH_FIRST = ['MM/dd/yyyy', 'M/d/yyyy', 'MM-dd-yyyy'];
const YEAR_FIRST = ['yyyy/MM/dd', 'yyyyMMdd', 'yyyy.MM.dd'];
const TIMES = [' HH:mm', ' HH:mm:ss', ' H:mm'];

const specs = new Map<string, ValueSpec>();
/** One spec object per type and format: `parseValue` builds a spec's converter (its zone, its parser) once per object. */
const spec = (type: 'date' | 'datetime', format?: string): ValueSpec => {
  const id = `${type} ${format ?? ''}`;
  let made = specs.get(id);
  if (made === undefined) {
    made = {
      type,
      items: 'string',
      separator: ',',
      decimals: 2,
      timezone: 'UTC',
      ...(format !== undefined ? { format } : {}),
    };
    specs.set(id, made);
  }
  return made;
};
let tolerance = 0;
/** Every value parses, or all but `tolerance` of them (a known field whose odd cells are the file's mistakes). */
const allParse = (values: readonly string[], s: ValueSpec) => {
  let bad = 0;
  for (const v of values) if (!parseValue(v, s).ok && ++bad > tolerance) return false;
  return bad < values.length;
};

/** Whether a format reads a value. */
const reads =
  ({ format, withTime }: { format: string; withTime: boolean }) =>
  (value: string): boolean =>
    parseValue(value, spec(withTime ? 'datetime' : 'date', format)).ok;

/** The first format of the list that reads every value, dates alone first, then with a time. */
function firstFitting(
  values: readonly string[],
  dates: readonly string[],
): { format: string; withTime: boolean } | undefined {
  for (const d of dates) if (allParse(values, spec('date', d))) return { format: d, withTime: false };
  for (const d of dates) {
    for (const t of TIMES) if (allParse(values, spec('datetime', d + t))) return { format: d + t, withTime: true };
  }
  return undefined;
}

/**
 * The date grammar every sampled value fits, tried with the tool's own date readers. When a
 * day-first and a month-first format both fit (`03/04/2026`), nothing in the sample tells them
 * apart: the guess names both readings of one value and leaves the choice to the user.
 * `misfits`: how many values may fail the chosen format (they are the rows `validate` will report).
 */
export function guessDateFormat(values: readonly string[], misfits = 0): DateGuess | undefined {
  tolerance = misfits;
  if (values.length === 0 || !values.every((v) => /\d/.test(v))) return undefined;
  // The ISO date reader accepts a time after the date (and drops it): look for times first.
  const timed = values.some((v) => /[T ]\d{1,2}:\d{2}/.test(v));
  if (!timed && allParse(values, spec('date'))) return { kind: 'iso', withTime: false };
  if (allParse(values, spec('datetime'))) return { kind: 'iso', withTime: true };
  const dayFirst = firstFitting(values, DAY_FIRST);
  const monthFirst = firstFitting(values, MONTH_FIRST);
  if (dayFirst !== undefined && monthFirst !== undefined) {
    // Both fit within the misfits allowed, but values only one order reads (13/05/2026) settle it,
    // as long as the other order reads none that it cannot (05/13/2026 would say the opposite).
    const days = values.map(reads(dayFirst));
    const months = values.map(reads(monthFirst));
    const onlyDays = days.some((d, i) => d && !months[i]);
    const onlyMonths = months.some((m, i) => m && !days[i]);
    if (onlyDays !== onlyMonths) return { kind: 'format', ...(onlyDays ? dayFirst : monthFirst) };
    const type = dayFirst.withTime ? 'datetime' : 'date';
    const example =
      values.find(
        (v) =>
          parseValue(v, spec(type, dayFirst.format)).ok &&
          JSON.stringify(parseValue(v, spec(type, dayFirst.format))) !==
            JSON.stringify(parseValue(v, spec(type, monthFirst.format))),
      ) ?? values[0]!;
    const read = (format: string) => {
      const r = parseValue(example, spec(type, format));
      return r.ok ? String(r.value).slice(0, 10) : '?';
    };
    return {
      kind: 'ambiguous',
      formats: [dayFirst.format, monthFirst.format],
      example,
      readings: [read(dayFirst.format), read(monthFirst.format)],
      withTime: dayFirst.withTime,
    };
  }
  const one = dayFirst ?? monthFirst ?? firstFitting(values, YEAR_FIRST);
  return one === undefined ? undefined : { kind: 'format', ...one };
}
