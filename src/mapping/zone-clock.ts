import { IANAZone } from 'luxon';
import { ConfigError } from '../errors.js';
import { nearest } from '../text/suggest.js';

const MINUTE = 60_000;
const DAY = 86_400_000;

/**
 * Why `timezone` cannot be used, or `undefined` when it can: for the config loader, which adds the
 * file and line. Names are IANA zones (`Europe/Warsaw`, `UTC`); a near miss is suggested.
 */
export function checkTimezone(name: string): string | undefined {
  if (IANAZone.isValidZone(name)) return undefined;
  const suggestion = nearestZone(name);
  const hint = suggestion === undefined ? '' : `; did you mean ${JSON.stringify(suggestion)}?`;
  return `unknown time zone ${JSON.stringify(name)} (expected an IANA name such as Europe/Warsaw${hint})`;
}

/** `Warsaw` and `new york` name a zone's city; `Europe/Warsw` is a typo of one (3 edits at most). */
function nearestZone(name: string): string | undefined {
  const wanted = name.trim().toLowerCase().replaceAll(' ', '_');
  if (wanted.length < 3) return undefined;
  const zones = ['UTC', ...Intl.supportedValuesOf('timeZone')];
  const city = zones.find((zone) => zone.toLowerCase().endsWith(`/${wanted}`));
  return city ?? nearest(wanted, zones, 3);
}

/** The UTC day a zone changes its offset on: the offset before and after the instant `at`. */
interface Transition {
  readonly at: number;
  readonly before: number;
  readonly after: number;
}

/** Days kept per zone before the cache starts over: a file rarely spans more than a few years. */
const MAX_CACHED_DAYS = 50_000;

/**
 * One IANA zone's clock: which instant a wall-clock time denotes there. Never consults the
 * machine's zone (process TZ, luxon `Settings.defaultZone`): every answer is a function of the
 * zone name and the input alone.
 */
export class ZoneClock {
  readonly name: string;
  private readonly zone: IANAZone;
  private readonly fixedUtc: boolean;
  // luxon asks Intl for each offset (about 10 µs); rows of one file fall on few days, so offsets
  // are cached per UTC day, assuming a zone changes its offset at most once a day.
  private readonly days = new Map<number, number | Transition>();

  constructor(name: string) {
    const problem = checkTimezone(name);
    if (problem !== undefined) throw new ConfigError('CONFIG_INVALID', problem);
    this.name = name;
    this.zone = IANAZone.create(name);
    this.fixedUtc = new Intl.DateTimeFormat('en-US', { timeZone: name }).resolvedOptions().timeZone === 'UTC';
  }

  /** Offset from UTC in ms at an instant. */
  offsetAt(instant: number): number {
    if (this.fixedUtc) return 0;
    const day = Math.floor(instant / DAY);
    let entry = this.days.get(day);
    if (entry === undefined) {
      if (this.days.size >= MAX_CACHED_DAYS) this.days.clear();
      entry = this.dayOffsets(day * DAY);
      this.days.set(day, entry);
    }
    if (typeof entry === 'number') return entry;
    return instant < entry.at ? entry.before : entry.after;
  }

  /**
   * The instant that the wall-clock time `wall` (its fields encoded as if it were UTC) denotes in
   * this zone, or `undefined` when the clocks skip it (spring forward). A time that happens twice
   * (autumn, clocks back) is read with the earlier offset, i.e. its first occurrence: the
   * convention of java.time and of Temporal's default `disambiguation: 'compatible'`.
   */
  instantOf(wall: number): number | undefined {
    if (this.fixedUtc) return wall;
    // Any offset is under a day, so the candidates are the offsets in force a day either side.
    const early = this.offsetAt(wall - DAY);
    const late = this.offsetAt(wall + DAY);
    let found: number | undefined;
    const a = wall - early;
    if (this.offsetAt(a) === early) found = a;
    if (late !== early) {
      const b = wall - late;
      if (this.offsetAt(b) === late && (found === undefined || b < found)) found = b;
    }
    return found;
  }

  private raw(instant: number): number {
    return Math.round(this.zone.offset(instant) * MINUTE);
  }

  private dayOffsets(start: number): number | Transition {
    const before = this.raw(start);
    const after = this.raw(start + DAY - 1000);
    if (before === after) return before;
    // Offsets change on a whole second: bisect the day's seconds (17 lookups, once per such day).
    let lo = 0;
    let hi = DAY / 1000 - 1;
    while (hi - lo > 1) {
      const mid = (lo + hi) >> 1;
      if (this.raw(start + mid * 1000) === before) lo = mid;
      else hi = mid;
    }
    return { at: start + hi * 1000, before, after };
  }
}
