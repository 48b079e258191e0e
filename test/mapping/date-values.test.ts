import { IANAZone, Settings } from 'luxon';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ResolvedField } from '../../src/mapping/field-spec.js';
import { parseValue } from '../helpers/parse-value.js';
import { field } from './_fields.js';

const ok = (value: unknown) => ({ ok: true, value });
const bad = (message: string) => ({ ok: false, message });
const ISO_DT = 'an ISO 8601 date-time such as 2026-03-29T14:30:00Z';

type Case = readonly [
  cell: string,
  spec: Partial<ResolvedField>,
  expected: ReturnType<typeof ok> | ReturnType<typeof bad>,
];

const dates: Case[] = [
  ['2026-03-29', {}, ok('2026-03-29')],
  ['2026-01-01', {}, ok('2026-01-01')],
  ['2026-12-31', {}, ok('2026-12-31')],
  ['2024-02-29', {}, ok('2024-02-29')],
  ['1970-01-01', {}, ok('1970-01-01')],
  ['0099-12-31', {}, ok('0099-12-31')],
  [' 2026-03-29 ', {}, ok('2026-03-29')],
  // A time or offset after the date does not move it to another day.
  ['2026-12-31T23:30:00-10:00', {}, ok('2026-12-31')],
  ['2026-01-01T00:30:00+14:00', {}, ok('2026-01-01')],
  ['2026-03-29 02:30', { timezone: 'Europe/Warsaw' }, ok('2026-03-29')],
  ['2026-03-29', { timezone: 'Pacific/Kiritimati' }, ok('2026-03-29')],
  ['2026-03-29', { timezone: 'America/Adak' }, ok('2026-03-29')],
  ['2011-12-30', { timezone: 'Pacific/Apia' }, ok('2011-12-30')], // a day Samoa skipped
  ['15.05.2026', { format: 'dd.MM.yyyy' }, ok('2026-05-15')],
  ['1/1/2026', { format: 'd/M/yyyy' }, ok('2026-01-01')],
  ['31.12.2026 23:59', { format: 'dd.MM.yyyy HH:mm', timezone: 'Pacific/Kiritimati' }, ok('2026-12-31')],
  ['Mar 29, 2026', { format: 'MMM d, yyyy' }, ok('2026-03-29')],
  ['29.03.26', { format: 'dd.MM.yy' }, ok('2026-03-29')],
  ['2026-02-31', {}, bad('expected a date as YYYY-MM-DD, got "2026-02-31" (no such day)')],
  ['2025-02-29', {}, bad('expected a date as YYYY-MM-DD, got "2025-02-29" (no such day)')],
  ['2026-13-01', {}, bad('expected a date as YYYY-MM-DD, got "2026-13-01" (no such month)')],
  ['2026-03-29T25:00', {}, bad('expected a date as YYYY-MM-DD, got "2026-03-29T25:00" (no such hour)')],
  ['02/04/2026', {}, bad('expected a date as YYYY-MM-DD, got "02/04/2026"')],
  ['2026-3-29', {}, bad('expected a date as YYYY-MM-DD, got "2026-3-29"')],
  ['20260329', {}, bad('expected a date as YYYY-MM-DD, got "20260329"')],
  ['31.02.2026', { format: 'dd.MM.yyyy' }, bad('expected a date as dd.MM.yyyy, got "31.02.2026" (no such day)')],
  ['2026-05-15', { format: 'dd.MM.yyyy' }, bad('expected a date as dd.MM.yyyy, got "2026-05-15"')],
  ['Feb 30, 2026', { format: 'MMM d, yyyy' }, bad('expected a date as MMM d, yyyy, got "Feb 30, 2026" (no such day)')],
  ['Foo 3, 2026', { format: 'MMM d, yyyy' }, bad('expected a date as MMM d, yyyy, got "Foo 3, 2026"')],
];

const datetimes: Case[] = [
  ['2026-03-29T01:30:00Z', {}, ok('2026-03-29T01:30:00.000Z')],
  ['2026-03-29T03:30:00+02:00', {}, ok('2026-03-29T01:30:00.000Z')],
  ['2026-03-29T03:30:00+0200', {}, ok('2026-03-29T01:30:00.000Z')],
  ['2026-03-29T03:30+02', {}, ok('2026-03-29T01:30:00.000Z')],
  ['2026-03-29 03:30:00 +02:00', {}, ok('2026-03-29T01:30:00.000Z')],
  ['2026-03-29 01:30', {}, ok('2026-03-29T01:30:00.000Z')],
  ['2026-03-29t01:30z', {}, ok('2026-03-29T01:30:00.000Z')],
  ['2026-03-29T01:30:00.123456Z', {}, ok('2026-03-29T01:30:00.123Z')],
  ['2026-03-29T01:30:00.9999Z', {}, ok('2026-03-29T01:30:00.999Z')],
  ['2026-03-29T01:30:00,5Z', {}, ok('2026-03-29T01:30:00.500Z')],
  ['2026-03-29', {}, ok('2026-03-29T00:00:00.000Z')],
  ['2026-01-05T17:40:03+01:00', {}, ok('2026-01-05T16:40:03.000Z')],
  ['2026-01-05T17:40:03-09:30', {}, ok('2026-01-06T03:10:03.000Z')],
  // Local times in a zone; around Europe/Warsaw's 2026 changes (29 March 02:00 → 03:00,
  // 25 October 03:00 → 02:00).
  ['2026-07-01 12:00', { timezone: 'Europe/Warsaw' }, ok('2026-07-01T10:00:00.000Z')],
  ['2026-03-29 01:59:59', { timezone: 'Europe/Warsaw' }, ok('2026-03-29T00:59:59.000Z')],
  ['2026-03-29 03:00', { timezone: 'Europe/Warsaw' }, ok('2026-03-29T01:00:00.000Z')],
  [
    '2026-03-29 02:30',
    { timezone: 'Europe/Warsaw' },
    bad('"2026-03-29 02:30" does not exist in Europe/Warsaw (the clocks skip it)'),
  ],
  [
    '2026-03-29T02:00',
    { timezone: 'Europe/Warsaw' },
    bad('"2026-03-29T02:00" does not exist in Europe/Warsaw (the clocks skip it)'),
  ],
  [
    '2026-03-29 02:30',
    { timezone: 'Europe/Warsaw', format: 'yyyy-MM-dd HH:mm' },
    bad('"2026-03-29 02:30" does not exist in Europe/Warsaw (the clocks skip it)'),
  ],
  ['2026-10-25 01:59', { timezone: 'Europe/Warsaw' }, ok('2026-10-24T23:59:00.000Z')],
  ['2026-10-25 02:00', { timezone: 'Europe/Warsaw' }, ok('2026-10-25T00:00:00.000Z')],
  ['2026-10-25 02:30', { timezone: 'Europe/Warsaw' }, ok('2026-10-25T00:30:00.000Z')], // ambiguous: first occurrence
  ['2026-10-25 02:59:59', { timezone: 'Europe/Warsaw' }, ok('2026-10-25T00:59:59.000Z')],
  ['2026-10-25 03:00', { timezone: 'Europe/Warsaw' }, ok('2026-10-25T02:00:00.000Z')],
  ['2026-10-25T02:30:00+01:00', { timezone: 'Europe/Warsaw' }, ok('2026-10-25T01:30:00.000Z')], // a written offset wins
  [
    '2026-03-08 02:30',
    { timezone: 'America/New_York' },
    bad('"2026-03-08 02:30" does not exist in America/New_York (the clocks skip it)'),
  ],
  ['2026-11-01 01:30', { timezone: 'America/New_York' }, ok('2026-11-01T05:30:00.000Z')],
  [
    '2026-03-08 02:30',
    { timezone: 'America/Adak' },
    bad('"2026-03-08 02:30" does not exist in America/Adak (the clocks skip it)'),
  ],
  ['2026-04-05 02:30', { timezone: 'Australia/Sydney' }, ok('2026-04-04T15:30:00.000Z')],
  [
    '2026-10-04 02:30',
    { timezone: 'Australia/Sydney' },
    bad('"2026-10-04 02:30" does not exist in Australia/Sydney (the clocks skip it)'),
  ],
  ['2026-04-05 01:45', { timezone: 'Australia/Lord_Howe' }, ok('2026-04-04T14:45:00.000Z')], // half-hour change
  ['2011-12-29 12:00', { timezone: 'Pacific/Apia' }, ok('2011-12-29T22:00:00.000Z')],
  [
    '2011-12-30 12:00',
    { timezone: 'Pacific/Apia' },
    bad('"2011-12-30 12:00" does not exist in Pacific/Apia (the clocks skip it)'),
  ],
  ['2011-12-31 12:00', { timezone: 'Pacific/Apia' }, ok('2011-12-30T22:00:00.000Z')],
  ['2026-01-01 00:00', { timezone: 'Pacific/Kiritimati' }, ok('2025-12-31T10:00:00.000Z')],
  ['2026-03-29 12:00', { timezone: 'Asia/Kolkata' }, ok('2026-03-29T06:30:00.000Z')],
  ['2026-03-02 09:00', { timezone: 'Europe/Berlin', format: 'yyyy-MM-dd HH:mm' }, ok('2026-03-02T08:00:00.000Z')],
  [
    '29.03.2026 03:30 +02:00',
    { timezone: 'America/Adak', format: 'dd.MM.yyyy HH:mm ZZ' },
    ok('2026-03-29T01:30:00.000Z'),
  ],
  ['02/04/2026 2:05 PM', { timezone: 'America/New_York', format: 'MM/dd/yyyy h:mm a' }, ok('2026-02-04T19:05:00.000Z')],
  ['02/04/2026 14:05', {}, bad(`expected ${ISO_DT}, got "02/04/2026 14:05"`)],
  ['2026-03-29T14:30:00+19:00', {}, bad(`expected ${ISO_DT}, got "2026-03-29T14:30:00+19:00" (no such offset)`)],
  ['2026-03-29T24:00', {}, bad(`expected ${ISO_DT}, got "2026-03-29T24:00" (no such hour)`)],
  ['2026-03-29T14:60', {}, bad(`expected ${ISO_DT}, got "2026-03-29T14:60" (no such minute)`)],
  ['2026-03-29T14:30:60Z', {}, bad(`expected ${ISO_DT}, got "2026-03-29T14:30:60Z" (no such second)`)],
  ['0000-01-01T00:00:00+01:00', {}, bad(`expected ${ISO_DT}, got "0000-01-01T00:00:00+01:00" (no such year)`)],
  ['2026-03-29Z', {}, bad(`expected ${ISO_DT}, got "2026-03-29Z"`)],
  ['1767604364123', { format: 'x' }, ok('2026-01-05T09:12:44.123Z')],
  ['1767604364123', { format: 'x', timezone: 'Pacific/Kiritimati' }, ok('2026-01-05T09:12:44.123Z')], // UTC by definition
  [
    '29.03.2026 25:00',
    { format: 'dd.MM.yyyy HH:mm' },
    bad('expected a date-time as dd.MM.yyyy HH:mm, got "29.03.2026 25:00" (no such hour)'),
  ],
];

const ISO_UNIX = `expected UNIX seconds or ${ISO_DT}`;
const unixes: Case[] = [
  ['1767604364', {}, ok(1767604364)],
  ['-86400', {}, ok(-86400)],
  ['0', {}, ok(0)],
  ['2026-01-05T09:12:44Z', {}, ok(1767604364)],
  ['2026-01-05T17:40:03+01:00', {}, ok(1767631203)],
  ['2026-01-05T09:12:44.999Z', {}, ok(1767604364)],
  ['1969-12-31T23:59:59.500Z', {}, ok(-1)],
  ['2026-03-29 01:30', { timezone: 'Europe/Warsaw' }, ok(Date.UTC(2026, 2, 29, 0, 30) / 1000)],
  [
    '2026-03-29 02:30',
    { timezone: 'Europe/Warsaw' },
    bad('"2026-03-29 02:30" does not exist in Europe/Warsaw (the clocks skip it)'),
  ],
  ['20260105', { format: 'yyyyMMdd' }, ok(Date.UTC(2026, 0, 5) / 1000)],
  [
    '1767604364000',
    {},
    bad('expected UNIX time in seconds, got "1767604364000" (milliseconds? read them with `format: x`)'),
  ],
  // UNIX milliseconds (`x`, as luxon names them) and seconds (`X`): fractions of a second dropped (floor).
  ['1767604364999', { format: 'x' }, ok(1767604364)],
  ['-1', { format: 'x' }, ok(-1)],
  ['1767604364', { format: 'X' }, ok(1767604364)],
  ['2026-01-05T09:12:44Z', { format: 'x' }, bad('expected UNIX time in milliseconds, got "2026-01-05T09:12:44Z"')],
  ['1767604364000.5', { format: 'x' }, bad('expected UNIX time in milliseconds, got "1767604364000.5"')],
  ['253402300800000', { format: 'x' }, bad('expected UNIX time in milliseconds, got "253402300800000" (no such year)')],
  ['99999999999999999', {}, bad('expected UNIX time in seconds, got "99999999999999999"')],
  ['1767604364.5', {}, bad(`${ISO_UNIX}, got "1767604364.5"`)],
  ['02/04/2026 14:05', {}, bad(`${ISO_UNIX}, got "02/04/2026 14:05"`)],
  ['1767604364', { format: 'yyyyMMdd' }, bad('expected a date-time as yyyyMMdd, got "1767604364"')],
];

// The machine's zone must not matter: every case runs with the process (and luxon's default)
// set to zones far apart, including the ones where a day boundary is nearest (+14 and -10).
const MACHINE_ZONES = ['UTC', 'Pacific/Kiritimati', 'America/Adak', 'Asia/Kolkata', 'Europe/Warsaw'];

describe.each(MACHINE_ZONES)('with the machine in %s', (zone) => {
  const saved = { tz: process.env['TZ'], luxon: Settings.defaultZone };
  beforeAll(() => {
    process.env['TZ'] = zone;
    Settings.defaultZone = zone;
  });
  afterAll(() => {
    if (saved.tz === undefined) delete process.env['TZ'];
    else process.env['TZ'] = saved.tz;
    Settings.defaultZone = saved.luxon;
  });

  it('really runs in that zone', () => {
    const at = Date.UTC(2026, 0, 15, 12);
    // getTimezoneOffset is minutes west of UTC, luxon's offset minutes east.
    expect(new Date(at).getTimezoneOffset() + IANAZone.create(zone).offset(at)).toBe(0);
    expect(Settings.defaultZone.name).toBe(zone);
  });

  it.each(dates)('date %j %j → %j', (cell, spec, expected) => {
    expect(parseValue(cell, field({ type: 'date', ...spec }))).toEqual(expected);
  });

  it.each(datetimes)('datetime %j %j → %j', (cell, spec, expected) => {
    expect(parseValue(cell, field({ type: 'datetime', ...spec }))).toEqual(expected);
  });

  it.each(unixes)('unix %j %j → %j', (cell, spec, expected) => {
    expect(parseValue(cell, field({ type: 'unix', ...spec }))).toEqual(expected);
  });
});
