import { describe, expect, it } from 'vitest';
import type { ResolvedField } from '../../src/mapping/field-spec.js';
import { ConfigError } from '../../src/errors.js';
import { Invalid } from '../../src/mapping/_converter.js';
import { fieldReader, OMIT } from '../../src/mapping/field-value.js';
import { constantField, field } from './_fields.js';

/** What a field makes of one cell: the value, `OMIT`, or `{ error }`. */
function read(spec: Partial<ResolvedField>, cell: string): unknown {
  const value = fieldReader(field(spec))({ c: cell });
  return value instanceof Invalid ? { error: value.message } : value;
}

const STATUS = { open: 1, 'in progress': 1, won: 2, lost: 3, abandoned: 0, archived: 4 };

describe('a column field', () => {
  it.each([
    [{}, 'Anna', 'Anna'],
    [{}, ' Anna ', ' Anna '], // strings keep their spaces
    [{}, '', OMIT],
    [{}, '   ', OMIT], // only spaces is empty
    [{ empty: 'null' }, '', null],
    [{ empty: 'null' }, ' ', null],
    [{ required: true }, '', { error: 'is required' }],
    [{ required: true, empty: 'null' }, '', { error: 'is required' }],
    [{ type: 'integer' }, ' 42 ', 42],
    [{ type: 'integer' }, '', OMIT],
    [{ type: 'integer' }, '4 2', { error: 'expected an integer, got "4 2"' }],
    [{ type: 'integer', default: '5' }, '', 5],
    [{ type: 'integer', default: ' 5 ' }, '', 5],
    [{ type: 'integer', default: 7 }, '', 7],
    [{ type: 'integer', default: 7, required: true }, '', 7], // a default satisfies required
    [{ default: 'n/a' }, '', 'n/a'],
    [{ default: null }, '', null],
    [{ type: 'list', separator: ';' }, ';;', OMIT], // a list with no elements is empty
    [{ type: 'list', separator: ';', required: true }, ' ; ', { error: 'is required' }],
    [{ type: 'list', separator: ';', default: 'a;b' }, '', ['a', 'b']],
    [{ type: 'list', separator: ';', default: [] }, '', []],
    [{ type: 'datetime', timezone: 'Europe/Warsaw', default: '2026-01-01 00:00' }, '', '2025-12-31T23:00:00.000Z'],
  ] satisfies [Partial<ResolvedField>, string, unknown][])('%j reads %j as %j', (spec, cell, expected) => {
    expect(read(spec, cell)).toEqual(expected);
  });

  it('throws (a bug, not a bad row) when the row lacks the column', () => {
    expect(() => fieldReader(field({ column: 'amount', target: 'data.amount' }))({ c: '1' })).toThrow(
      'mapRow: column "amount" of field "data.amount" is not in the row',
    );
  });

  it('gives every row its own copy of an object default', () => {
    const reader = fieldReader(field({ type: 'json', default: { a: 1 } }));
    const first = reader({ c: '' });
    expect(first).toEqual({ a: 1 });
    expect(reader({ c: '' })).not.toBe(first);
  });
});

describe('a mapped field', () => {
  it.each([
    [{ type: 'integer', map: STATUS }, 'won', 2],
    [{ type: 'integer', map: STATUS }, ' in progress ', 1],
    [{ type: 'integer', map: STATUS }, 'Won', 2], // case is ignored when no key differs only by case
    [{ type: 'integer', map: STATUS }, 'WON', 2],
    [{ type: 'integer', map: STATUS }, 'abandoned', 0],
    [{ type: 'integer', map: STATUS }, '', OMIT], // an empty cell is empty, not a missing key
    [{ type: 'integer', map: STATUS, required: true }, '', { error: 'is required' }],
    [
      { type: 'integer', map: STATUS },
      'pending',
      { error: 'expected one of "open", "in progress", "won", "lost", "abandoned", "archived", got "pending"' },
    ],
    [
      { type: 'integer', map: { wygrana: 2, przegrana: 3, otwarta: 1 } },
      'wygrany',
      { error: 'expected one of "wygrana", "przegrana", "otwarta", got "wygrany" (did you mean "wygrana"?)' },
    ],
    [{ type: 'integer', map: { none: null, one: 1 } }, 'none', null],
    [{ type: 'integer', map: { '': 0, one: 1 } }, '', 0], // an explicit "" key maps the empty cell
    [{ type: 'integer', map: { a: '12' } }, 'a', 12], // a string from the map is converted by type
    [{ type: 'number', map: { half: 0.5 } }, 'half', 0.5],
    [{ type: 'decimal', map: { half: 0.5 } }, 'half', '0.50'],
    [{ type: 'boolean', map: { ja: 'yes', nein: false } }, 'ja', true],
    [{ map: { won: 2 } }, 'won', '2'], // type string: the mapped number becomes text
    [{ type: 'list', items: 'integer', map: { both: '1,2', one: 1 } }, 'both', [1, 2]],
    [{ type: 'list', items: 'integer', map: { both: '1,2', one: 1 } }, 'one', [1]],
    [{ map: { Yes: 'Y', YES: 'YY' } }, 'YES', 'YY'], // exact match first
    [
      { map: { Yes: 'Y', YES: 'YY' } },
      'yes',
      { error: 'expected one of "Yes", "YES", got "yes" (did you mean "Yes"?)' },
    ], // two keys fold alike
  ] satisfies [Partial<ResolvedField>, string, unknown][])('%j reads %j as %j', (spec, cell, expected) => {
    expect(read(spec, cell)).toEqual(expected);
  });

  it('lists at most 12 keys', () => {
    const map = Object.fromEntries(Array.from({ length: 15 }, (_, i) => [`k${i}`, i]));
    const keys = Array.from({ length: 12 }, (_, i) => `"k${i}"`).join(', ');
    expect(read({ type: 'integer', map }, 'zzz')).toEqual({ error: `expected one of ${keys} and 3 more, got "zzz"` });
  });
});

describe('a constant field', () => {
  it.each([['text'], [0], [false], [null], [[1, 2]], [{ a: { b: 1 } }]])('sends %j as it is', (value) => {
    expect(fieldReader(constantField('x', value))({})).toEqual(value);
  });

  it('gives every row its own copy of an object', () => {
    const reader = fieldReader(constantField('x', { a: [1] }));
    expect(reader({})).not.toBe(reader({}));
  });
});

describe('a field that cannot be compiled', () => {
  it.each([
    [{ type: 'integer', default: 'x' }, 'default: expected an integer, got "x"'],
    [{ type: 'integer', map: { won: 'two' } }, 'map.won: expected an integer, got "two"'],
    [{ type: 'boolean', map: { a: 5 } }, 'map.a: expected true/false, yes/no or 1/0, got 5'],
    [
      { type: 'datetime', timezone: 'Mars/Olympus' },
      'unknown time zone "Mars/Olympus" (expected an IANA name such as Europe/Warsaw)',
    ],
    [{ type: 'date', format: 'dd.MM' }, 'date format "dd.MM" lacks a year, month or day (e.g. dd.MM.yyyy)'],
  ] satisfies [Partial<ResolvedField>, string][])('%j: %s', (spec, message) => {
    expect(() => fieldReader(field(spec))).toThrow(ConfigError);
    expect(() => fieldReader(field(spec))).toThrow(message);
  });
});

describe('trim', () => {
  it.each([
    ['custom_id', undefined, ' P2 ', 'P2'],
    ['user_custom_id', undefined, '\tP2 ', 'P2'],
    ['data.note', undefined, ' hello ', ' hello '],
    ['data.note', true, ' hello ', 'hello'],
    ['custom_id', false, ' P2 ', ' P2 '],
  ] as const)('%s with trim %s reads %j as %j', (target, trim, cell, value) => {
    const read = fieldReader(field({ target, ...(trim !== undefined ? { trim } : {}) }));
    expect(read({ c: cell })).toBe(value);
  });
});
