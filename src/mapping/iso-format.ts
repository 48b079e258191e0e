// Date.prototype.toISOString costs about 1.5 µs in V8; this arithmetic about a tenth of that, and
// it runs for every date cell of every row. A property test holds both equal over 0000–9999.

const DAY = 86_400_000;

const pad2 = (n: number): string => (n < 10 ? `0${n}` : `${n}`);
const pad3 = (n: number): string => (n < 10 ? `00${n}` : n < 100 ? `0${n}` : `${n}`);
const pad4 = (n: number): string => (n < 1000 ? `0${pad3(n)}` : `${n}`);

/** `YYYY-MM-DD` of the UTC day holding `ms` (years 0000–9999). Days to civil date: H. Hinnant. */
export function isoDate(ms: number): string {
  const z = Math.floor(ms / DAY) + 719_468;
  const era = Math.floor(z / 146_097);
  const doe = z - era * 146_097;
  const yoe = Math.floor((doe - Math.floor(doe / 1460) + Math.floor(doe / 36_524) - Math.floor(doe / 146_096)) / 365);
  const doy = doe - (365 * yoe + Math.floor(yoe / 4) - Math.floor(yoe / 100));
  const mp = Math.floor((5 * doy + 2) / 153);
  const day = doy - Math.floor((153 * mp + 2) / 5) + 1;
  const month = mp < 10 ? mp + 3 : mp - 9;
  const year = yoe + era * 400 + (month <= 2 ? 1 : 0);
  return `${pad4(year)}-${pad2(month)}-${pad2(day)}`;
}

/** `YYYY-MM-DDTHH:mm:ss.sssZ` of an instant (years 0000–9999): what `toISOString` writes. */
export function isoDateTime(ms: number): string {
  let t = ms - Math.floor(ms / DAY) * DAY;
  const milli = t % 1000;
  t = (t - milli) / 1000;
  const second = t % 60;
  t = (t - second) / 60;
  const minute = t % 60;
  const hour = (t - minute) / 60;
  return `${isoDate(ms)}T${pad2(hour)}:${pad2(minute)}:${pad2(second)}.${pad3(milli)}Z`;
}
