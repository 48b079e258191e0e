/**
 * ISO 8601 as exports write it, the one grammar every date check of the tool reads: a calendar
 * date, optionally a time (`T` or a space, as spreadsheets write it), fractional seconds and an
 * offset. Week and ordinal dates are not accepted: no export writes them, and a lone `2026` or
 * `202603` is more likely a mistake.
 *
 * The grammar, as a regular expression (test/mapping/iso-time.test.ts keeps it as the oracle the
 * reader below is checked against, on arbitrary text):
 *   ^(\d{4})-(\d{2})-(\d{2})(?:[Tt ](\d{2}):(\d{2})(?::(\d{2})(?:[.,](\d{1,9}))?)?(?: ?([Zz]|[+-]\d{2}(?::?\d{2})?))?)?$
 * It is read by hand, digit by digit: the regular expression's match array and substrings were
 * the largest cost of a timestamp column on a million-row dry run.
 */

const HOUR = 3_600_000;
const MINUTE = 60_000;

/** The digit at `i` (0–9), or -1 (also past the end). */
function digit(text: string, i: number): number {
  const d = text.charCodeAt(i) - 48;
  return d >= 0 && d <= 9 ? d : -1;
}

/** Two digits at `i` as a number, or -1. */
function two(text: string, i: number): number {
  const a = digit(text, i);
  const b = digit(text, i + 1);
  return a < 0 || b < 0 ? -1 : a * 10 + b;
}

/** The fields of a text that follows the grammar; the calendar is not checked yet (`wallTime`). */
export interface IsoFields {
  year: number;
  month: number;
  day: number;
  hour: number;
  minute: number;
  second: number;
  ms: number;
  /** Whether a time follows the date. */
  hasTime: boolean;
  /** ms east of UTC; `undefined` when none is written; NaN beyond ±18:00. */
  offset: number | undefined;
}

/** The text's fields, or `undefined` when it does not follow the grammar. Never throws. */
export function readIsoFields(text: string): IsoFields | undefined {
  const length = text.length;
  if (length < 10 || text.charCodeAt(4) !== 45 || text.charCodeAt(7) !== 45) return undefined; // '-'
  const century = two(text, 0);
  const yy = two(text, 2);
  const month = two(text, 5);
  const day = two(text, 8);
  if (century < 0 || yy < 0 || month < 0 || day < 0) return undefined;
  const fields: IsoFields = {
    year: century * 100 + yy,
    month,
    day,
    hour: 0,
    minute: 0,
    second: 0,
    ms: 0,
    hasTime: false,
    offset: undefined,
  };
  if (length === 10) return fields;
  const separator = text.charCodeAt(10);
  if (separator !== 84 && separator !== 116 && separator !== 32) return undefined; // T t space
  fields.hasTime = true;
  fields.hour = two(text, 11);
  fields.minute = two(text, 14);
  if (fields.hour < 0 || text.charCodeAt(13) !== 58 || fields.minute < 0) return undefined; // ':'
  let i = 16;
  if (text.charCodeAt(i) === 58) {
    fields.second = two(text, i + 1);
    if (fields.second < 0) return undefined;
    i += 3;
    const mark = text.charCodeAt(i);
    if (mark === 46 || mark === 44) {
      // `.` or `,`, then 1 to 9 digits; beyond milliseconds they are cut, not rounded.
      const start = ++i;
      let ms = 0;
      while (digit(text, i) >= 0) {
        if (i - start < 3) ms = ms * 10 + digit(text, i);
        i++;
      }
      const count = i - start;
      if (count < 1 || count > 9) return undefined;
      fields.ms = count >= 3 ? ms : ms * (count === 1 ? 100 : 10);
    }
  }
  if (i === length) return fields;
  if (text.charCodeAt(i) === 32) i++; // one space may come before the offset
  const sign = text.charCodeAt(i);
  if ((sign === 90 || sign === 122) && i + 1 === length) {
    fields.offset = 0; // Z z
    return fields;
  }
  if (sign !== 43 && sign !== 45) return undefined; // + -
  const hours = two(text, i + 1);
  if (hours < 0) return undefined;
  i += 3;
  if (text.charCodeAt(i) === 58 && i + 3 === length) i++; // `+hh:mm`
  let minutes = 0;
  if (i < length) {
    minutes = two(text, i);
    if (minutes < 0 || i + 2 !== length) return undefined;
  }
  // ±18:00 is the widest offset ISO 8601 allows; `-00:00` is UTC, not -0.
  const size =
    hours > 18 || minutes > 59 || (hours === 18 && minutes > 0) ? Number.NaN : hours * HOUR + minutes * MINUTE;
  fields.offset = sign === 45 ? -size + 0 : size;
  return fields;
}
