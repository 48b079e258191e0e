import { readIsoFields } from '../time/iso-8601.js';
import { wallTime } from '../time/calendar.js';
import { badTime, type TimeReader } from './written-time.js';

/**
 * Reads `2026-03-29`, `2026-03-29T14:30`, `2026-03-29 14:30:00.123`, `2026-03-29T14:30:00+02:00`.
 * Fractions beyond milliseconds are cut, not rounded, so a time never moves into the next second.
 * @param expected start of the message for a bad cell (`expected a date as YYYY-MM-DD`).
 */
export function isoReader(expected: string): TimeReader {
  return (text) => {
    const f = readIsoFields(text);
    if (f === undefined) return badTime(expected, text);
    const wall = wallTime(f.year, f.month, f.day, f.hour, f.minute, f.second, f.ms);
    if (typeof wall === 'string') return badTime(expected, text, wall);
    if (Number.isNaN(f.offset)) return badTime(expected, text, 'no such offset');
    return { wall, offset: f.offset };
  };
}
