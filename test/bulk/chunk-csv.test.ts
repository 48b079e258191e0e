import { parse } from 'csv-parse/sync';
import { describe, expect, it } from 'vitest';
import { bulkColumns, cellText, headerLine, payloadLine, type BulkColumn } from '../../src/bulk/chunk-csv.js';

const USER: BulkColumn[] = [
  { field: 'custom_id', header: 'custom_id' },
  { field: 'email', header: 'email' },
  { field: 'tags', header: 'tags' },
  { field: 'loyalty', header: 'loyalty' },
];

describe('payloadLine and headerLine', () => {
  it('writes the header and one line per payload, cells in column order, a missing field as an empty cell', () => {
    expect(headerLine(USER)).toBe('custom_id,email,tags,loyalty\n');
    expect(payloadLine(USER, { email: 'a@example.com', custom_id: 'C-1', tags: ['vip', 'spring'] })).toEqual({
      ok: true,
      text: 'C-1,a@example.com,vip|spring,\n',
    });
  });

  it('quotes as RFC 4180 (csv-parse reads back exactly what was written)', () => {
    const payload = { custom_id: 'C-"1"', email: 'a,b@example.com', tags: ['x, y', 'new\nline'], loyalty: 'Łódź ✓' };
    const line = payloadLine(USER, payload);
    expect(line.ok).toBe(true);
    const [record] = parse(headerLine(USER) + (line as { text: string }).text, { columns: true }) as Record<
      string,
      string
    >[];
    expect(record).toEqual({ custom_id: 'C-"1"', email: 'a,b@example.com', tags: 'x, y|new\nline', loyalty: 'Łódź ✓' });
  });

  it('deal headers come from the mapping (bulk_header), the field stays the payload key', () => {
    const columns: BulkColumn[] = [
      { field: 'custom_id', header: 'Deal Id' },
      { field: 'name', header: 'Name' },
      { field: 'order_products', header: 'Order products' },
    ];
    expect(headerLine(columns)).toBe('Deal Id,Name,Order products\n');
    expect(
      payloadLine(columns, {
        custom_id: 'D-1',
        name: 'Big',
        order_products: [{ product_custom_id: 'P', quantity: 2 }],
      }),
    ).toEqual({ ok: true, text: 'D-1,Big,"[{""product_custom_id"":""P"",""quantity"":2}]"\n' });
  });

  it('a payload key without a column is refused (unknown-field)', () => {
    expect(payloadLine(USER, { custom_id: 'C-1', shoe: 1 })).toEqual({
      ok: false,
      field: 'shoe',
      reason: 'unknown-field',
      message: 'shoe: no bulk column for this field',
    });
  });

  it.each([
    ['null (clears a field per row)', { custom_id: 'C-1', email: null }, 'email', 'null'],
    ['an empty text', { custom_id: 'C-1', email: '' }, 'email', 'empty-string'],
    ['an empty list (clears tags per row)', { custom_id: 'C-1', tags: [] }, 'tags', 'empty-list'],
    ['a list value holding "|"', { custom_id: 'C-1', tags: ['a|b'] }, 'tags', 'separator-in-list'],
    ['an empty list value', { custom_id: 'C-1', tags: ['a', ''] }, 'tags', 'separator-in-list'],
    ['a list of lists', { custom_id: 'C-1', tags: [['a']] }, 'tags', 'nested-list'],
  ])(
    '%s cannot be a bulk cell with the same meaning: refused with a reason, for the per-row path',
    (_case, payload, field, reason) => {
      expect(payloadLine(USER, payload)).toMatchObject({ ok: false, field, reason });
    },
  );
});

describe('cellText', () => {
  it.each([
    ['text', 'Anna', 'Anna'],
    ['a number', 12.5, '12.5'],
    ['an integer', 42, '42'],
    ['true', true, 'true'],
    ['false', false, 'false'],
    ['numbers in a list', [1, 2], '1|2'],
    ['an object (a JSON custom attribute)', { plan: 'pro', seats: 3 }, '{"plan":"pro","seats":3}'],
  ])('%s', (_case, value, text) => {
    expect(cellText(value)).toBe(text);
  });
});

describe('a field the importer reads as a list', () => {
  const columns = (bulkColumns('user', ['custom_id', 'tags']) as { columns: BulkColumn[] }).columns;

  it('is marked, for contacts (tags) and deals (participants, products, products_custom_id)', () => {
    expect(columns).toEqual([
      { field: 'custom_id', header: 'custom_id' },
      { field: 'tags', header: 'tags', list: true },
    ]);
    const deal = bulkColumns('deal', ['participants', 'name'], { participants: 'Participants', name: 'Name' });
    expect(deal).toEqual({
      columns: [
        { field: 'participants', header: 'Participants', list: true },
        { field: 'name', header: 'Name' },
      ],
    });
  });

  it('takes a list; a single text (which the importer would split on |, and a request refuses) goes per row', () => {
    expect(payloadLine(columns, { custom_id: 'C-1', tags: ['vip', 'gold'] })).toEqual({
      ok: true,
      text: 'C-1,vip|gold\n',
    });
    expect(payloadLine(columns, { custom_id: 'C-1', tags: 'vip|gold' })).toMatchObject({
      ok: false,
      field: 'tags',
      reason: 'not-a-list',
    });
    expect(payloadLine(columns, { custom_id: 'C-1', tags: 'vip' })).toMatchObject({ ok: false, reason: 'not-a-list' });
  });
});

describe('bulkColumns', () => {
  it('users and products: the top-level field names once each, in mapping order', () => {
    expect(bulkColumns('user', ['custom_id', 'email', 'prefs.a', 'prefs.b'])).toEqual({
      columns: [
        { field: 'custom_id', header: 'custom_id' },
        { field: 'email', header: 'email' },
        { field: 'prefs', header: 'prefs' },
      ],
    });
  });

  it('deals: every field needs its bulk_header; the ones without are named', () => {
    expect(bulkColumns('deal', ['custom_id', 'name', 'value'], { custom_id: 'Deal Id', name: 'Name' })).toEqual({
      missingHeaders: ['value'],
    });
    expect(bulkColumns('deal', ['custom_id', 'name'], { custom_id: 'Deal Id', name: 'Name' })).toEqual({
      columns: [
        { field: 'custom_id', header: 'Deal Id' },
        { field: 'name', header: 'Name' },
      ],
    });
  });
});
