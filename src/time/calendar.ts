/**
 * The calendar every date check of the tool uses: the years a date may have and the days of a
 * month. Four-digit years, as ISO 8601 and the API's own `YYYY-MM-DD` write them (docs/api-contract.md
 * R-DEAL-2): beyond them a number is far more likely a mistake (a UNIX time in milliseconds read as
 * seconds) than a real date.
 */

export const MIN_YEAR = 0;
export const MAX_YEAR = 9999;
/** First and last instant of those years (ms since the epoch, UTC). */
export const MIN_INSTANT = new Date(0).setUTCFullYear(MIN_YEAR, 0, 1);
export const MAX_INSTANT = Date.UTC(MAX_YEAR, 11, 31, 23, 59, 59, 999);

const DAYS_IN_MONTH = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31] as const;

/** Days of `month` (1–12) in `year` of the Gregorian calendar; 0 for a month that does not exist. */
export function daysInMonth(year: number, month: number): number {
  if (month === 2 && year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0)) return 29;
  return DAYS_IN_MONTH[month - 1] ?? 0;
}

/**
 * The written fields as a UTC timestamp, or the reason they name no real time (`no such day`
 * for 31.02). Hour 24 is refused: `24:00` means the next day, which would move a date.
 */
export function wallTime(
  year: number,
  month: number,
  day: number,
  hour: number,
  minute: number,
  second: number,
  ms: number,
): number | string {
  if (year < MIN_YEAR || year > MAX_YEAR) return 'no such year';
  if (month < 1 || month > 12) return 'no such month';
  if (day < 1 || day > daysInMonth(year, month)) return 'no such day';
  if (hour > 23) return 'no such hour';
  if (minute > 59) return 'no such minute';
  if (second > 59) return 'no such second';
  let wall = Date.UTC(year, month - 1, day, hour, minute, second, ms);
  // Date.UTC reads years 0–99 as 1900–1999: the year is set again, with the month and day, since
  // 29 February of a leap year among them (0004, 0000) fell on 1 March of a 19xx year.
  if (year < 100) wall = new Date(wall).setUTCFullYear(year, month - 1, day);
  return wall;
}

/** Whether `n` is UNIX time in whole seconds within those years. */
export function isUnixSeconds(n: unknown): n is number {
  return (
    Number.isSafeInteger(n) && (n as number) >= MIN_INSTANT / 1000 && (n as number) <= Math.floor(MAX_INSTANT / 1000)
  );
}

/**
 * Whether a number that is not seconds would be milliseconds within those years: 13 digits is
 * what JavaScript and Java clocks print, and the likeliest mistake in a seconds field.
 */
export function isUnixMilliseconds(n: unknown): boolean {
  return Number.isSafeInteger(n) && (n as number) >= MIN_INSTANT && (n as number) <= MAX_INSTANT;
}
