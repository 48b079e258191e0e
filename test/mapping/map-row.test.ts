import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { ResolvedField } from '../../src/mapping/field-spec.js';
import { ConfigError } from '../../src/errors.js';
import { formatFieldErrors } from '../../src/mapping/field-error.js';
import { compileMapping } from '../../src/mapping/map-row.js';
import { keyOf, mapRow } from '../helpers/map-row.js';
import { constantField, field, mapping } from './_fields.js';

const events = mapping(
  [
    field({ target: 'user_custom_id', column: 'customer_id', required: true }),
    field({ target: 'name', column: 'event', required: true }),
    field({ target: 'timestamp', column: 'occurred_at', type: 'unix' }),
    field({ target: 'data.plan', column: 'plan' }),
    field({ target: 'data.amount', column: 'amount', type: 'number' }),
    field({ target: 'data.channel', column: 'channel', empty: 'null' }),
    constantField('data.source', 'csv-import'),
  ],
  ['event_id'],
);

const row = (cells: Record<string, string>) => ({
  event_id: 'EV-0001',
  customer_id: 'C-10001',
  event: 'trail_club_signup',
  occurred_at: '2026-01-05T09:12:44Z',
  plan: 'family',
  amount: '49.00',
  channel: 'web',
  ...cells,
});

describe('mapRow', () => {
  it('builds nested objects from dotted targets', () => {
    expect(mapRow(row({}), events)).toMatchObject({
      payload: {
        user_custom_id: 'C-10001',
        name: 'trail_club_signup',
        timestamp: 1767604364,
        data: { plan: 'family', amount: 49, channel: 'web', source: 'csv-import' },
      },
      errors: [],
    });
  });

  it('leaves out empty cells, or sends null where the field says so', () => {
    expect(mapRow(row({ plan: '', amount: ' ', channel: '' }), events).payload).toEqual({
      user_custom_id: 'C-10001',
      name: 'trail_club_signup',
      timestamp: 1767604364,
      data: { channel: null, source: 'csv-import' },
    });
  });

  it('reports every error of a row at once, by target path, and leaves those fields out', () => {
    const mapped = mapRow(
      row({ customer_id: '', event: ' ', occurred_at: '02/04/2026 14:05', amount: '1,299.00' }),
      events,
    );
    expect(mapped.errors).toEqual([
      { field: 'user_custom_id', message: 'is required' },
      { field: 'name', message: 'is required' },
      {
        field: 'timestamp',
        message: 'expected UNIX seconds or an ISO 8601 date-time such as 2026-03-29T14:30:00Z, got "02/04/2026 14:05"',
      },
      { field: 'data.amount', message: 'expected a number without thousands separators, got "1,299.00"' },
    ]);
    expect(mapped.payload).toEqual({ data: { plan: 'family', channel: 'web', source: 'csv-import' } });
    expect(formatFieldErrors(mapped.errors)).toBe(
      'user_custom_id: is required; name: is required; timestamp: expected UNIX seconds or an ISO 8601 date-time such as 2026-03-29T14:30:00Z, got "02/04/2026 14:05"; data.amount: expected a number without thousands separators, got "1,299.00"',
    );
  });

  const webpush = mapping(
    [
      field({ target: 'id', column: 'campaign_id', type: 'integer', required: true }),
      field({
        target: 'eta',
        column: 'send_at',
        type: 'datetime',
        format: 'yyyy-MM-dd HH:mm',
        timezone: 'Europe/Berlin',
      }),
      field({ target: 'messages.0.title', column: 'title' }),
      field({ target: 'messages.0.require_interaction', column: 'sticky', type: 'boolean' }),
      field({ target: 'messages.1.title', column: 'title2' }),
    ],
    ['campaign_id'],
  );

  it.each([
    [
      { campaign_id: '1', send_at: '2026-03-02 09:00', title: 'Sale', sticky: 'yes', title2: 'Last day' },
      {
        id: 1,
        eta: '2026-03-02T08:00:00.000Z',
        messages: [{ title: 'Sale', require_interaction: true }, { title: 'Last day' }],
      },
    ],
    [
      { campaign_id: '2', send_at: '', title: '', sticky: '', title2: 'Only the second' },
      { id: 2, messages: [{ title: 'Only the second' }] }, // no `[null, …]`
    ],
    [
      { campaign_id: '3', send_at: '', title: '', sticky: '', title2: '' },
      { id: 3 }, // no empty `messages`
    ],
  ])('builds arrays from numeric segments: %j', (cells, payload) => {
    expect(mapRow(cells, webpush)).toMatchObject({ payload, errors: [] });
  });

  it('maps a `;` list of integers, a status map and a date format (deals)', () => {
    const deals = mapping(
      [
        field({ target: 'status', column: 'status', type: 'integer', map: { open: 1, won: 2, lost: 3 } }),
        field({ target: 'products', column: 'products', type: 'list', items: 'integer', separator: ';' }),
        field({ target: 'expected_close_date', column: 'close', type: 'date', format: 'dd.MM.yyyy' }),
        field({ target: 'order_products.0.value', column: 'value', type: 'decimal' }),
      ],
      ['ref'],
    );
    expect(
      mapRow({ ref: 'D-1', status: 'Won', products: '11; 12;;13;', close: '15.05.2026', value: '826.9' }, deals),
    ).toMatchObject({
      payload: {
        status: 2,
        products: [11, 12, 13],
        expected_close_date: '2026-05-15',
        order_products: [{ value: '826.90' }],
      },
      errors: [],
    });
    expect(
      mapRow({ ref: 'D-2', status: 'pending', products: '11;x', close: '31.02.2026', value: '1.005' }, deals).errors,
    ).toEqual([
      { field: 'status', message: 'expected one of "open", "won", "lost", got "pending"' },
      { field: 'products', message: 'item 2: expected an integer, got "x"' },
      { field: 'expected_close_date', message: 'expected a date as dd.MM.yyyy, got "31.02.2026" (no such day)' },
      { field: 'order_products.0.value', message: 'expected at most 2 decimals, got "1.005"' },
    ]);
  });

  it('gives each row its own payload objects', () => {
    const m = mapping([constantField('data', { a: 1 }), field({ target: 'tags', type: 'list' })]);
    const first = mapRow({ c: 'x' }, m).payload;
    const second = mapRow({ c: 'x' }, m).payload;
    expect(second).toEqual(first);
    expect(second['data']).not.toBe(first['data']);
  });

  it('throws when a column of the mapping is missing from the row (checkHeader runs first)', () => {
    const { plan: _plan, ...rest } = row({});
    expect(() => mapRow(rest, events)).toThrow('mapRow: column "plan" of field "data.plan" is not in the row');
  });

  it('never throws on any cell text, and its errors name fields of the mapping', () => {
    const targets = new Set(events.fields.map((f) => f.target));
    const cell = fc.oneof(fc.string({ unit: 'binary' }), fc.stringMatching(/^[0-9 .,:+\-TZe]{0,25}$/));
    fc.assert(
      fc.property(
        fc.record({ customer_id: cell, event: cell, occurred_at: cell, plan: cell, amount: cell, channel: cell }),
        (cells) => {
          const mapped = mapRow({ event_id: 'x', ...cells }, events);
          for (const e of mapped.errors) expect(targets.has(e.field)).toBe(true);
        },
      ),
      { numRuns: 500 },
    );
  });
});

describe('compileMapping', () => {
  it('reports every problem of the mapping at once, with the file', () => {
    const bad = mapping([
      field({ target: 'a', type: 'integer', default: 'x' }),
      field({ target: 'b', type: 'datetime', timezone: 'Europe/Warsw' }),
      field({ target: 'c' }),
      field({ target: 'c.d' }),
    ]);
    expect(() => compileMapping(bad)).toThrow(ConfigError);
    expect(() => compileMapping(bad)).toThrow(
      [
        '/work/mappings/test.yaml: fields.a: default: expected an integer, got "x"',
        '/work/mappings/test.yaml: fields.b: unknown time zone "Europe/Warsw" (expected an IANA name such as Europe/Warsaw; did you mean "Europe/Warsaw"?)',
        '/work/mappings/test.yaml: fields: "c.d" and "c" both set "c", as an object and a value',
      ].join('\n'),
    );
  });

  it('returns a mapper equal to mapRow', () => {
    const mapper = compileMapping(events);
    expect(mapper(row({}))).toEqual(mapRow(row({}), events));
  });
});

describe('keyOf', () => {
  const fields: ResolvedField[] = [field()];
  it.each([
    [['id'], { id: 'C-10001', c: '' }, 'C-10001'],
    [['id'], { id: '', c: '' }, ''],
    [['pipeline', 'id'], { id: 'D-7', pipeline: '2', c: '' }, '2|D-7'],
    [['a', 'b', 'c'], { a: 'x', b: ' y ', c: 'z' }, 'x| y |z'],
  ])('%j of %j → %j', (key, values, expected) => {
    expect(keyOf(values, mapping(fields, key))).toBe(expected);
  });

  it('throws when a key column is missing from the row', () => {
    expect(() => keyOf({ c: '' }, mapping(fields, ['id']))).toThrow('keyOf: key column "id" is not in the row');
  });
});
