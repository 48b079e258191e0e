/**
 * Dates and datetimes as the service reads and writes them. Input: ISO 8601 as the web
 * framework's parser takes it (`T` or a space, seconds and fractions optional, `Z` or an offset;
 * a time without an offset is UTC). Output: `toISOString`, with milliseconds and `Z`
 * (docs/api-contract.md R-DEAL-9: "ISO 8601 with fractional seconds and a Z suffix").
 */

const DATETIME =
  /^(\d{4})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2})(?::(\d{2})(?:[.,](\d{1,9}))?)?\s*(Z|[+-]\d{2}(?::?\d{2})?)?$/i;
const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;

/** The instant `text` names, as `YYYY-MM-DDTHH:MM:SS.sssZ`; undefined when it is not a valid ISO 8601 datetime. */
export function parseDateTime(text: string): string | undefined {
  const m = DATETIME.exec(text.trim());
  if (m === null) return undefined;
  const [, y, mo, d, h, mi, s = '0', frac = '', zone = 'Z'] = m;
  if (!validDate(Number(y), Number(mo), Number(d)) || Number(h) > 23 || Number(mi) > 59 || Number(s) > 59)
    return undefined;
  let offsetMinutes = 0;
  if (zone.toUpperCase() !== 'Z') {
    const digits = zone.slice(1).replace(':', '');
    const oh = Number(digits.slice(0, 2));
    const om = Number(digits.slice(2) || '0');
    if (oh > 23 || om > 59) return undefined;
    offsetMinutes = (zone.startsWith('-') ? -1 : 1) * (oh * 60 + om);
  }
  const ms = Date.UTC(
    Number(y),
    Number(mo) - 1,
    Number(d),
    Number(h),
    Number(mi),
    Number(s),
    Number(frac.padEnd(3, '0').slice(0, 3)),
  );
  return new Date(ms - offsetMinutes * 60_000).toISOString();
}

/** `text` when it is a valid `YYYY-MM-DD` calendar date, else undefined. */
export function parseDate(text: string): string | undefined {
  const m = DATE.exec(text);
  if (m === null) return undefined;
  return validDate(Number(m[1]), Number(m[2]), Number(m[3])) ? text : undefined;
}

let lastMs = Number.NaN;
let lastText = '';

/** The record timestamp format (`created_at`, `updated_at`); the last one is kept, as a busy sandbox asks for the same millisecond many times. */
export function isoTime(ms: number): string {
  if (ms !== lastMs) {
    lastText = new Date(ms).toISOString();
    lastMs = ms;
  }
  return lastText;
}

function validDate(y: number, m: number, d: number): boolean {
  if (m < 1 || m > 12 || d < 1) return false;
  return d <= new Date(Date.UTC(y, m, 0)).getUTCDate();
}
