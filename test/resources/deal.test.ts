import { describe, expect, it } from 'vitest';
import type { Operation } from '../../src/config/mapping-schema.js';
import type { FieldError } from '../../src/mapping/field-error.js';
import { deal } from '../../src/resources/deal.js';

const e = (field: string, message: string, alternatives?: string[]): FieldError =>
  alternatives ? { field, message, alternatives } : { field, message };
const base = { custom_id: 'D-1', name: 'Family camping set' };
const DT = 'expected an ISO 8601 date-time with an offset such as 2026-03-29T14:30:00Z';

describe('deal.validate: field types (R-DEAL-2)', () => {
  it.each<[string, unknown, string | undefined]>([
    ['id', 12, undefined],
    ['id', '12', 'expected an integer, got "12"'],
    ['custom_id', 5, 'expected a string, got 5'],
    ['activities_status', 'open', undefined],
    ['activities_status', 1, 'expected a string, got 1'],
    ['assigned_to', 3.5, 'expected an integer, got 3.5'],
    ['company_id', 'ACME', 'expected an integer, got "ACME"'],
    ['currency', 'EUR', undefined],
    ['currency', 'EURO', '"EURO" is not an ISO 4217 currency code (did you mean "EUR"?)'],
    ['expected_close_date', '2026-05-15', undefined],
    ['expected_close_date', '2026-02-31', 'expected a date as YYYY-MM-DD, got "2026-02-31" (no such day)'],
    ['loss_reason', 'price', 'expected an integer, got "price"'],
    ['lost_at', '2026-03-02T10:00:00.000Z', undefined],
    ['lost_at', '2026-03-02', `${DT}, got "2026-03-02"`],
    ['name', 7, 'expected a string, got 7'],
    ['participants', [1, 2], undefined],
    ['participants', [1, 'C-2'], 'item 2: expected an integer, got "C-2"'],
    ['participants', 1, 'expected a list, got 1'],
    ['pipeline', '1', 'expected an integer, got "1"'],
    ['products', [10, 11], undefined],
    ['products', ['TNT'], 'item 1: expected an integer, got "TNT"'],
    ['products_custom_id', ['TNT-4P-BLU', 'SKU/2024/RED'], undefined],
    ['products_custom_id', ['A', 2], 'item 2: expected a string, got 2'],
    ['stage', true, 'expected an integer, got true'],
    ['status', 0, undefined],
    ['status', 4, undefined],
    ['status', 7, '"7" is not a valid choice.'],
    ['status', -1, '"-1" is not a valid choice.'],
    ['status', 'pending', '"pending" is not a valid choice.'],
    ['status', 1.5, '"1.5" is not a valid choice.'],
    ['status', '2', 'expected an integer, got "2"'],
    ['user_id', 'C-1', 'expected an integer, got "C-1"'],
    ['value', 826.9, undefined],
    ['value', 0, undefined],
    ['value', '826.90', 'expected a number, got "826.90"'],
    ['won_at', '2026-03-02T10:00:00+01:00', undefined],
    ['won_at', 1767604811, `${DT}, got 1767604811`],
    ['user_custom_id', 10001, 'expected a string, got 10001'],
    ['company_custom_id', ['A'], 'expected a string, got ["A"]'],
    ['lead_source', { any: ['custom attribute'] }, undefined],
  ])('%s = %j → %s', (field, value, message) => {
    const errors = deal.validate({ ...base, [field]: value }, 'update_or_create');
    expect(errors).toEqual(message === undefined ? [] : [e(field, message)]);
  });

  it('accepts null in any optional field: a mapping with `empty: null` clears it', () => {
    const payload = {
      ...base,
      currency: null,
      expected_close_date: null,
      status: null,
      participants: null,
      order_products: null,
    };
    expect(deal.validate(payload, 'update_or_create')).toEqual([]);
  });
});

describe('deal.validate: required fields per operation', () => {
  it.each<[Operation, Record<string, unknown>, FieldError[]]>([
    ['create', { name: 'x' }, []],
    ['create', {}, [e('name', 'is required')]],
    ['create', { name: '  ' }, [e('name', 'must not be empty, got "  "')]],
    ['create', { name: null }, [e('name', 'is required')]],
    ['update_or_create', { custom_id: 'D-1', name: 'x' }, []],
    ['update_or_create', {}, [e('custom_id', 'is required'), e('name', 'is required')]],
    ['update_or_create', { custom_id: '', name: 'x' }, [e('custom_id', 'must not be empty, got ""')]],
    ['update', { id: 5 }, []],
    ['update', { id: 5, name: '' }, []],
    ['update', { custom_id: 'D-1', name: 'x' }, [e('id', 'is required')]],
    ['update', { id: '5' }, [e('id', 'expected an integer, got "5"')]],
  ])('%s %j', (operation, payload, errors) => {
    expect(deal.validate(payload, operation)).toEqual(errors);
  });

  it('reports every error of the row at once, in R-DEAL-2 order', () => {
    const payload = {
      status: 9,
      currency: 'EURO',
      custom_id: 'D-1',
      expected_close_date: '31.02.2026',
      order_products: [{ quantity: 'two' }],
    };
    expect(deal.validate(payload, 'create')).toEqual([
      e('currency', '"EURO" is not an ISO 4217 currency code (did you mean "EUR"?)'),
      e('expected_close_date', 'expected a date as YYYY-MM-DD, got "31.02.2026"'),
      e('name', 'is required'),
      e('status', '"9" is not a valid choice.'),
      e('order_products.0.product_custom_id', 'is required (or product_id)', ['order_products.0.product_id']),
      e('order_products.0.quantity', 'expected an integer, got "two"'),
    ]);
  });

  it('refuses to guess an operation the mapping schema requires', () => {
    expect(() => deal.validate(base, undefined)).toThrow(TypeError);
  });
});

describe('deal.validate: order_products (R-DEAL-8 order product object)', () => {
  it.each<[string, unknown, FieldError[]]>([
    ['by product id', [{ product_id: 1, currency: 'EUR', value: '12.50', quantity: 2 }], []],
    ['by product custom id', [{ product_custom_id: 'SKU/2024/RED', value: '-3', quantity: 1 }], []],
    ['both references', [{ product_id: 1, product_custom_id: 'A' }], []],
    ['extra keys pass through', [{ product_id: 1, note: 'gift wrap' }], []],
    [
      'no product',
      [{ quantity: 1 }],
      [e('order_products.0.product_custom_id', 'is required (or product_id)', ['order_products.0.product_id'])],
    ],
    [
      'bad types',
      [{ product_id: 'A1', currency: 'euro', value: 12.5, quantity: 1.5 }],
      [
        e('order_products.0.product_id', 'expected an integer, got "A1"'),
        e('order_products.0.currency', '"euro" is not an ISO 4217 currency code (did you mean "EUR"?)'),
        e('order_products.0.value', 'expected a decimal number as text such as "12.50" (type: decimal), got 12.5'),
        e('order_products.0.quantity', 'expected an integer, got 1.5'),
      ],
    ],
    [
      'value not a decimal',
      [{ product_id: 1, value: '12,50' }],
      [e('order_products.0.value', 'expected a decimal number as text such as "12.50" (type: decimal), got "12,50"')],
    ],
    [
      'empty product_custom_id',
      [{ product_custom_id: '' }],
      [e('order_products.0.product_custom_id', 'must not be empty, got ""')],
    ],
    [
      'errors name the item',
      [{ product_id: 1 }, 'TNT', { product_custom_id: 'B', currency: 'XYZ' }],
      [
        e('order_products.1', 'expected an order product object, got "TNT"'),
        e('order_products.2.currency', '"XYZ" is not an ISO 4217 currency code'),
      ],
    ],
    ['not a list', { product_id: 1 }, [e('order_products', 'expected a list of order products, got {"product_id":1}')]],
  ])('%s', (_name, items, errors) => {
    expect(deal.validate({ ...base, order_products: items }, 'update_or_create')).toEqual(errors);
  });
});

describe('deal.toRequest', () => {
  const payload = { id: 42, custom_id: 'D-1', name: 'x', status: 2, lead_source: 'fair' };
  it.each<[string, Operation, Record<string, unknown>, object, object]>([
    ['create → POST deals/', 'create', base, {}, { method: 'POST', path: 'deals/', body: base }],
    [
      'update_or_create → POST deals/update_or_create/',
      'update_or_create',
      base,
      {},
      { method: 'POST', path: 'deals/update_or_create/', body: base },
    ],
    [
      'update → PATCH deals/:id/, id out of the body, custom attributes kept',
      'update',
      payload,
      {},
      { method: 'PATCH', path: 'deals/42/', body: { custom_id: 'D-1', name: 'x', status: 2, lead_source: 'fair' } },
    ],
    [
      'update with dealUpdateMethod PATCH',
      'update',
      { id: 7, value: 1 },
      { dealUpdateMethod: 'PATCH' },
      { method: 'PATCH', path: 'deals/7/', body: { value: 1 } },
    ],
    [
      'update with dealUpdateMethod PUT',
      'update',
      { id: 7, value: 1 },
      { dealUpdateMethod: 'PUT' },
      { method: 'PUT', path: 'deals/7/', body: { value: 1 } },
    ],
  ])('%s', (_name, operation, input, options, call) => {
    expect(deal.toRequest(input, operation, options)).toEqual(call);
  });

  it('does not change the payload, and never shares it with the body', () => {
    const input = { ...payload };
    const call = deal.toRequest(input, 'update_or_create', {});
    expect(call.body).not.toBe(input);
    deal.toRequest(input, 'update', {});
    expect(input).toEqual(payload);
  });

  it('refuses an update without an integer id', () => {
    expect(() => deal.toRequest({ name: 'x' }, 'update', {})).toThrow(TypeError);
  });
});

describe('deal: idempotency (R-IDEM-1, R-IDEM-4)', () => {
  it.each<[Operation, boolean]>([
    ['create', false],
    ['update', true],
    ['update_or_create', true],
  ])('%s → %s', (operation, idempotent) => {
    expect(deal.idempotent(operation)).toBe(idempotent);
  });
});

describe('deal references', () => {
  it('parents: users by id and custom id, participants, products, order products; each once', () => {
    const payload = {
      user_id: 5,
      user_custom_id: 'C-1',
      participants: [5, 6],
      products: [10],
      products_custom_id: ['A', 'SKU/2024/RED'],
      order_products: [{ product_id: 10 }, { product_custom_id: 'B' }, 'junk'],
      company_custom_id: 'ACME',
    };
    expect(deal.parents(payload)).toEqual([
      { kind: 'user', by: 'id', value: '5' },
      { kind: 'user', by: 'custom_id', value: 'C-1' },
      { kind: 'user', by: 'id', value: '6' },
      { kind: 'product', by: 'id', value: '10' },
      { kind: 'product', by: 'custom_id', value: 'A' },
      { kind: 'product', by: 'custom_id', value: 'SKU/2024/RED' },
      { kind: 'product', by: 'custom_id', value: 'B' },
    ]);
  });

  it.each([
    [{ custom_id: 'D-1' }, undefined, [{ kind: 'deal', by: 'custom_id', value: 'D-1' }]],
    [
      { custom_id: 'D-1' },
      '77',
      [
        { kind: 'deal', by: 'custom_id', value: 'D-1' },
        { kind: 'deal', by: 'id', value: '77' },
      ],
    ],
    [{ id: 77, name: 'x' }, '77', [{ kind: 'deal', by: 'id', value: '77' }]],
    [{ name: 'x', custom_id: 12.5 }, undefined, []],
  ])('identity(%j, %j)', (payload, responseId, refs) => {
    expect(deal.identity(payload, responseId)).toEqual(refs);
  });

  it('runs in the deals stage', () => {
    expect(deal.stage).toBe('deals');
  });
});
