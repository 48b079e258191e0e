import { badTime, wallTime, type TimeReader } from './written-time.js';

// ISO 8601 as exports write it: a calendar date, optionally a time (`T` or a space, as
// spreadsheets write it), fractional seconds and an offset. Week and ordinal dates are not
// accepted: no export writes them, and a lone `2026` or `202603` is more likely a mistake.
const ISO = /^(\d{4})-(\d{2})-(\d{2})(?:[Tt ](\d{2}):(\d{2})(?::(\d{2})(?:[.,](\d{1,9}))?)?(?: ?([Zz]|[+-]\d{2}(?::?\d{2})?))?)?$/;

const HOUR = 3_600_000;
const MINUTE = 60_000;

const num = (digits: string | undefined): number => (digits === undefined ? 0 : Number(digits));

/** ISO 8601 offset text → ms, or `undefined` beyond ±18:00 (the widest offset ISO 8601 allows). */
function offsetOf(text: string): number | undefined {
  if (text === 'Z' || text === 'z') return 0;
  const hours = Number(text.slice(1, 3));
  const minutes = Number(text.slice(text.charAt(3) === ':' ? 4 : 3) || '0');
  if (hours > 18 || minutes > 59 || (hours === 18 && minutes > 0)) return undefined;
  const size = hours * HOUR + minutes * MINUTE;
  return text.charAt(0) === '-' ? -size + 0 : size; // `-00:00` is UTC, not -0
}

/**
 * Reads `2026-03-29`, `2026-03-29T14:30`, `2026-03-29 14:30:00.123`, `2026-03-29T14:30:00+02:00`.
 * Fractions beyond milliseconds are cut, not rounded, so a time never moves into the next second.
 * @param expected start of the message for a bad cell (`expected a date as YYYY-MM-DD`).
 */
export function isoReader(expected: string): TimeReader {
  return (text) => {
    const m = ISO.exec(text);
    if (m === null) return badTime(expected, text);
    const fraction = m[7];
    const ms = fraction === undefined ? 0 : Number(fraction.length >= 3 ? fraction.slice(0, 3) : fraction.padEnd(3, '0'));
    const wall = wallTime(num(m[1]), num(m[2]), num(m[3]), num(m[4]), num(m[5]), num(m[6]), ms);
    if (typeof wall === 'string') return badTime(expected, text, wall);
    const offsetText = m[8];
    if (offsetText === undefined) return { wall, offset: undefined };
    const offset = offsetOf(offsetText);
    if (offset === undefined) return badTime(expected, text, 'no such offset');
    return { wall, offset };
  };
}
