import { describe, expect, it } from 'vitest';
import {
  boolean,
  currency,
  date,
  datetime,
  integer,
  Issues,
  jsonObject,
  listOf,
  nonEmptyString,
  number,
  string,
  stringOfAtMost,
  unixSeconds,
  type Rule,
} from '../../src/resources/_checks.js';

const cases: [string, unknown, string | undefined, Rule][] = [
  ['integer', 42, undefined, integer],
  ['integer', -3, undefined, integer],
  ['integer', 1.5, 'expected an integer, got 1.5', integer],
  ['integer', '42', 'expected an integer, got "42"', integer],
  ['integer', 2 ** 53, 'expected an integer, got 9007199254740992', integer],
  ['string', '', undefined, string],
  ['string', 12, 'expected a string, got 12', string],
  ['nonEmptyString', 'a', undefined, nonEmptyString],
  ['nonEmptyString', '  ', 'must not be empty, got "  "', nonEmptyString],
  ['nonEmptyString', 5, 'expected a string, got 5', nonEmptyString],
  ['number', 12.5, undefined, number],
  ['number', '12.50', 'expected a number, got "12.50"', number],
  ['number', Number.NaN, 'expected a number, got null', number],
  ['boolean', false, undefined, boolean],
  ['boolean', 'yes', 'expected true or false, got "yes"', boolean],
  ['jsonObject', {}, undefined, jsonObject],
  ['jsonObject', [1], 'expected a JSON object, got [1]', jsonObject],
  ['jsonObject', 'x', 'expected a JSON object, got "x"', jsonObject],
  ['date', '2026-02-28', undefined, date],
  ['date', '2024-02-29', undefined, date],
  ['date', '2026-02-29', 'expected a date as YYYY-MM-DD, got "2026-02-29" (no such day)', date],
  ['date', '2026-13-01', 'expected a date as YYYY-MM-DD, got "2026-13-01" (no such day)', date],
  ['date', '31.02.2026', 'expected a date as YYYY-MM-DD, got "31.02.2026"', date],
  ['date', '2026-03-02T10:00:00Z', 'expected a date as YYYY-MM-DD, got "2026-03-02T10:00:00Z"', date],
  ['datetime', '2026-03-29T01:30:00.000Z', undefined, datetime],
  ['datetime', '2026-03-29T01:30Z', undefined, datetime],
  ['datetime', '2026-03-29 01:30:00+02:00', undefined, datetime],
  ['datetime', '2026-03-29T01:30:00-0530', undefined, datetime],
  [
    'datetime',
    '2026-03-29T01:30:00',
    'expected an ISO 8601 date-time with an offset such as 2026-03-29T14:30:00Z, got "2026-03-29T01:30:00"',
    datetime,
  ],
  [
    'datetime',
    '2026-02-30T01:30:00Z',
    'expected an ISO 8601 date-time with an offset such as 2026-03-29T14:30:00Z, got "2026-02-30T01:30:00Z" (no such time)',
    datetime,
  ],
  [
    'datetime',
    '2026-03-29T24:00:00Z',
    'expected an ISO 8601 date-time with an offset such as 2026-03-29T14:30:00Z, got "2026-03-29T24:00:00Z" (no such time)',
    datetime,
  ],
  // The grammar the mapping engine reads (src/time/iso-8601.ts): the same offsets are accepted and refused.
  ['datetime', '2026-03-29T01:30:00,5 +14', undefined, datetime],
  [
    'datetime',
    '2026-03-29T01:30:00+18:30',
    'expected an ISO 8601 date-time with an offset such as 2026-03-29T14:30:00Z, got "2026-03-29T01:30:00+18:30" (no such time)',
    datetime,
  ],
  [
    'datetime',
    1774747800,
    'expected an ISO 8601 date-time with an offset such as 2026-03-29T14:30:00Z, got 1774747800',
    datetime,
  ],
  ['unixSeconds', 1767604364, undefined, unixSeconds],
  ['unixSeconds', 0, undefined, unixSeconds],
  ['unixSeconds', 1767604364000, 'expected UNIX time in whole seconds, got 1767604364000 (milliseconds?)', unixSeconds],
  ['unixSeconds', 1767604364.5, 'expected UNIX time in whole seconds, got 1767604364.5', unixSeconds],
  ['unixSeconds', '1767604364', 'expected UNIX time in whole seconds, got "1767604364"', unixSeconds],
  ['currency', 'EUR', undefined, currency],
  ['currency', 'PLN', undefined, currency],
  ['currency', 'EURO', '"EURO" is not an ISO 4217 currency code (did you mean "EUR"?)', currency],
  ['currency', 'eur', '"eur" is not an ISO 4217 currency code (did you mean "EUR"?)', currency],
  ['currency', 'ABC', '"ABC" is not an ISO 4217 currency code', currency],
  ['currency', 'euro dollars', '"euro dollars" is not an ISO 4217 currency code', currency],
  ['currency', 'USDD', '"USDD" is not an ISO 4217 currency code (did you mean "USD"?)', currency],
  ['currency', 'EU', '"EU" is not an ISO 4217 currency code', currency],
  ['currency', 978, 'expected an ISO 4217 currency code, got 978', currency],
  ['listOf(integer)', [1, 2], undefined, listOf(integer)],
  ['listOf(integer)', [], undefined, listOf(integer)],
  ['listOf(integer)', [1, 'x', 3.5], 'item 2: expected an integer, got "x"', listOf(integer)],
  ['listOf(integer)', 7, 'expected a list, got 7', listOf(integer)],
  ['stringOfAtMost(3)', 'abc', undefined, stringOfAtMost(3)],
  ['stringOfAtMost(3)', 'ąćę', undefined, stringOfAtMost(3)],
  ['stringOfAtMost(3)', '😀😀😀', undefined, stringOfAtMost(3)],
  ['stringOfAtMost(3)', 'abcd', 'at most 3 characters, got 4: "abcd"', stringOfAtMost(3)],
  ['stringOfAtMost(3)', 123, 'expected a string, got 123', stringOfAtMost(3)],
];

describe('rules', () => {
  it.each(cases)('%s(%j) → %s', (_name, value, message, rule) => {
    expect(rule(value)).toBe(message);
  });
});

describe('Issues', () => {
  it('reports a missing or null required field, accepts a null optional one, and checks given values', () => {
    const issues = new Issues();
    const payload = { a: null, c: null, d: 'x', e: 1, extra: 1 };
    issues.required(payload, 'a', integer);
    issues.required(payload, 'b', integer);
    issues.optional(payload, 'c', integer);
    issues.optional(payload, 'd', integer, 'nested.0.');
    issues.required(payload, 'e', integer);
    issues.unknown(payload, new Set(['a', 'b', 'c', 'd', 'e']), 'is not known');
    expect(issues.list).toEqual([
      { field: 'a', message: 'is required' },
      { field: 'b', message: 'is required' },
      { field: 'nested.0.d', message: 'expected an integer, got "x"' },
      { field: 'extra', message: 'is not known' },
    ]);
  });

  it('does not read inherited properties as fields', () => {
    const issues = new Issues();
    issues.required({}, 'toString', string);
    expect(issues.list).toEqual([{ field: 'toString', message: 'is required' }]);
  });
});
