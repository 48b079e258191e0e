import fc from 'fast-check';
import { IANAZone } from 'luxon';
import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/errors.js';
import { checkTimezone, ZoneClock } from '../../src/mapping/zone-clock.js';

const HOUR = 3_600_000;

describe('checkTimezone', () => {
  it.each([
    ['Europe/Warsaw', undefined],
    ['UTC', undefined],
    ['utc', undefined],
    ['Etc/GMT-2', undefined],
    ['America/Argentina/Buenos_Aires', undefined],
    [
      'Europe/Warsw',
      'unknown time zone "Europe/Warsw" (expected an IANA name such as Europe/Warsaw; did you mean "Europe/Warsaw"?)',
    ],
    [
      'Warsaw',
      'unknown time zone "Warsaw" (expected an IANA name such as Europe/Warsaw; did you mean "Europe/Warsaw"?)',
    ],
    [
      'new york',
      'unknown time zone "new york" (expected an IANA name such as Europe/Warsaw; did you mean "America/New_York"?)',
    ],
    ['CEST', 'unknown time zone "CEST" (expected an IANA name such as Europe/Warsaw)'],
    ['GMT+2', 'unknown time zone "GMT+2" (expected an IANA name such as Europe/Warsaw)'],
    ['Mars/Olympus', 'unknown time zone "Mars/Olympus" (expected an IANA name such as Europe/Warsaw)'],
  ])('%j → %j', (name, message) => {
    expect(checkTimezone(name)).toBe(message);
  });

  it('a ZoneClock refuses an unknown zone with a config error', () => {
    expect(() => new ZoneClock('Europe/Warsw')).toThrow(ConfigError);
    expect(() => new ZoneClock('Europe/Warsw')).toThrow('unknown time zone "Europe/Warsw"');
  });
});

describe('ZoneClock', () => {
  const warsaw = new ZoneClock('Europe/Warsaw');
  const spring = Date.UTC(2026, 2, 29, 1); // 02:00 local becomes 03:00
  const autumn = Date.UTC(2026, 9, 25, 1); // 03:00 local becomes 02:00

  it.each([
    [spring - 1000, 1],
    [spring, 2],
    [autumn - 1000, 2],
    [autumn, 1],
    [Date.UTC(2026, 6, 1), 2],
  ])('offset at %d is %i h', (instant, hours) => {
    expect(warsaw.offsetAt(instant)).toBe(hours * HOUR);
  });

  it.each([
    // [wall clock, expected instant or undefined]
    [Date.UTC(2026, 2, 29, 1, 59), Date.UTC(2026, 2, 29, 0, 59)],
    [Date.UTC(2026, 2, 29, 2, 0), undefined],
    [Date.UTC(2026, 2, 29, 2, 59, 59, 999), undefined],
    [Date.UTC(2026, 2, 29, 3, 0), Date.UTC(2026, 2, 29, 1, 0)],
    [Date.UTC(2026, 9, 25, 2, 30), Date.UTC(2026, 9, 25, 0, 30)],
    [Date.UTC(2026, 9, 25, 3, 0), Date.UTC(2026, 9, 25, 2, 0)],
  ])('wall %d → instant %j', (wall, instant) => {
    expect(warsaw.instantOf(wall)).toBe(instant);
  });

  it.each(['UTC', 'Etc/UTC', 'GMT'])('%s is UTC: wall time is the instant', (name) => {
    expect(new ZoneClock(name).instantOf(Date.UTC(2026, 2, 29, 2, 30))).toBe(Date.UTC(2026, 2, 29, 2, 30));
  });

  const zones = [
    'Europe/Warsaw',
    'America/New_York',
    'Australia/Lord_Howe',
    'Pacific/Apia',
    'Asia/Kathmandu',
    'America/Santiago',
    'Africa/Casablanca',
  ];
  const instants = fc.integer({ min: Date.UTC(1950, 0, 1), max: Date.UTC(2060, 0, 1) });

  it('its cached offsets equal luxon’s, at any instant', () => {
    fc.assert(
      fc.property(fc.constantFrom(...zones), instants, (name, instant) => {
        const clock = new ZoneClock(name);
        // Warm the cache for the day first, then ask for the instant itself.
        clock.offsetAt(Math.floor(instant / 86_400_000) * 86_400_000);
        expect(clock.offsetAt(instant)).toBe(Math.round(IANAZone.create(name).offset(instant) * 60_000));
      }),
      { numRuns: 2000 },
    );
  });

  it('reads the wall time of any instant back as that instant or an earlier one showing the same time', () => {
    fc.assert(
      fc.property(fc.constantFrom(...zones), instants, (name, instant) => {
        const clock = new ZoneClock(name);
        const wall = instant + clock.offsetAt(instant);
        const back = clock.instantOf(wall);
        expect(back).toBeDefined();
        expect(back!).toBeLessThanOrEqual(instant);
        expect(back! + clock.offsetAt(back!)).toBe(wall);
      }),
      { numRuns: 2000 },
    );
  });
});
