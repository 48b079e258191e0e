import { Invalid, quote } from './_converter.js';

/**
 * A date and time as written in a cell, before any time zone is applied. Its fields are encoded
 * as if they were UTC (`Date.UTC`), so reading the date back never involves a zone: a date-only
 * value cannot shift by a day, whatever the machine's time zone.
 */
export interface WrittenTime {
  /** The written fields as a UTC timestamp (ms). */
  readonly wall: number;
  /** The offset from UTC written in the text (`Z`, `+02:00`), in ms; `undefined` when there is none. */
  readonly offset: number | undefined;
}

/** Reads a cell into a `WrittenTime`, or an `Invalid` naming the bad value; never throws. */
export type TimeReader = (text: string) => WrittenTime | Invalid;

/** Years a date may have: four digits, as ISO 8601 and the API's own `YYYY-MM-DD` write them. */
export const MIN_YEAR = 0;
export const MAX_YEAR = 9999;
/** First and last instant of those years (ms). */
export const MIN_INSTANT = new Date(0).setUTCFullYear(MIN_YEAR, 0, 1);
export const MAX_INSTANT = Date.UTC(MAX_YEAR, 11, 31, 23, 59, 59, 999);

const DAYS_IN_MONTH = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31] as const;

function daysInMonth(year: number, month: number): number {
  if (month === 2 && year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0)) return 29;
  return DAYS_IN_MONTH[month - 1] ?? 0;
}

/**
 * The written fields as a UTC timestamp, or the reason they name no real time (`no such day`
 * for 31.02). Hour 24 is refused: `24:00` means the next day, which would move a date.
 */
export function wallTime(year: number, month: number, day: number, hour: number, minute: number, second: number, ms: number): number | string {
  if (year < MIN_YEAR || year > MAX_YEAR) return 'no such year';
  if (month < 1 || month > 12) return 'no such month';
  if (day < 1 || day > daysInMonth(year, month)) return 'no such day';
  if (hour > 23) return 'no such hour';
  if (minute > 59) return 'no such minute';
  if (second > 59) return 'no such second';
  let wall = Date.UTC(year, month - 1, day, hour, minute, second, ms);
  // Date.UTC reads years 0–99 as 1900–1999.
  if (year < 100) wall = new Date(wall).setUTCFullYear(year);
  return wall;
}

/** `expected …, got "x" (reason)`. */
export function badTime(expected: string, text: string, reason?: string): Invalid {
  return new Invalid(`${expected}, got ${quote(text)}${reason === undefined ? '' : ` (${reason})`}`);
}
