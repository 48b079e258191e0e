import { describe, expect, it } from 'vitest';
import type { FieldError } from '../../src/mapping/field-error.js';
import { productEvent } from '../../src/resources/product-event.js';

const e = (field: string, message: string, alternatives?: string[]): FieldError =>
  alternatives ? { field, message, alternatives } : { field, message };
const valid = {
  custom_id: 'TNT-2P-GRN',
  user_custom_id: 'C-10001',
  event_type: 'view',
  timestamp: 1767604811,
  data: { price: 249 },
};
const UNKNOWN =
  'is not a field of a product event (custom_id, user_id or user_custom_id, data, event_type, timestamp); custom values go under data.';
const ALL_TYPES =
  'click, promo click, view, detail, liking, add to observation, reservation, add, add to cart, remove, checkout, checkout option, order, purchase, return, refund';

describe('productEvent.validate (R-PEVT-2, R-PEVT-3)', () => {
  it.each<[string, Record<string, unknown>, FieldError[]]>([
    ['a valid hit by custom id', valid, []],
    [
      'by user_id, a custom id with slashes',
      { ...valid, user_custom_id: undefined, user_id: 5, custom_id: 'SKU/2024/RED' },
      [],
    ],
    ['empty data object', { ...valid, data: {} }, []],
    ['every event type of the list', { ...valid, event_type: 'checkout option' }, []],
    ['no custom_id', { ...valid, custom_id: undefined }, [e('custom_id', 'is required')]],
    ['empty custom_id', { ...valid, custom_id: '' }, [e('custom_id', 'must not be empty, got ""')]],
    ['custom_id a dot segment', { ...valid, custom_id: '.' }, [e('custom_id', '"." cannot be sent in a URL path')]],
    [
      'custom_id with a .. part',
      { ...valid, custom_id: 'SKU/../x' },
      [e('custom_id', '"SKU/../x" cannot be sent in a URL path (it holds a ".." segment)')],
    ],
    ['custom_id a number', { ...valid, custom_id: 1001 }, [e('custom_id', 'expected a string, got 1001')]],
    [
      'no user',
      { ...valid, user_custom_id: undefined },
      [e('user_custom_id', 'is required (or user_id)', ['user_id'])],
    ],
    ['both users', { ...valid, user_id: 3 }, [e('user_id', 'give either user_id or user_custom_id, not both')]],
    ['a user custom id with a slash is fine in the body', { ...valid, user_custom_id: 'shop/C-1' }, []],
    ['no data', { ...valid, data: undefined }, [e('data', 'is required')]],
    ['data null', { ...valid, data: null }, [e('data', 'is required')]],
    ['data not an object', { ...valid, data: 'x' }, [e('data', 'expected a JSON object, got "x"')]],
    ['no event_type', { ...valid, event_type: undefined }, [e('event_type', 'is required')]],
    [
      'event_type spelled with underscores',
      { ...valid, event_type: 'add_to_cart' },
      [e('event_type', '"add_to_cart" is not an event type (did you mean "add to cart"?)')],
    ],
    [
      'event_type in capitals',
      { ...valid, event_type: 'Purchase' },
      [e('event_type', '"Purchase" is not an event type (did you mean "purchase"?)')],
    ],
    [
      'event_type nowhere near',
      { ...valid, event_type: 'shipped' },
      [e('event_type', `"shipped" is not an event type (expected one of ${ALL_TYPES})`)],
    ],
    ['event_type not text', { ...valid, event_type: 3 }, [e('event_type', 'expected a string, got 3')]],
    ['no timestamp', { ...valid, timestamp: undefined }, [e('timestamp', 'is required')]],
    [
      'timestamp in milliseconds',
      { ...valid, timestamp: 1767604811000 },
      [e('timestamp', 'expected UNIX time in whole seconds, got 1767604811000 (milliseconds?)')],
    ],
    ['an unknown field', { ...valid, quantity: 2 }, [e('quantity', UNKNOWN)]],
    [
      'every error of the row at once',
      { data: [1], event_type: 'add-to-cart', sku: 'x' },
      [
        e('custom_id', 'is required'),
        e('user_custom_id', 'is required (or user_id)', ['user_id']),
        e('data', 'expected a JSON object, got [1]'),
        e('event_type', '"add-to-cart" is not an event type (did you mean "add to cart"?)'),
        e('timestamp', 'is required'),
        e('sku', UNKNOWN),
      ],
    ],
  ])('%s', (_name, payload, errors) => {
    // A key set to undefined is how a mapping leaves a field out.
    const mapped = Object.fromEntries(Object.entries(payload).filter(([, v]) => v !== undefined));
    expect(productEvent.validate(mapped, undefined)).toEqual(errors);
  });
});

describe('productEvent.toRequest', () => {
  it.each([
    [
      'standard endpoint, custom_id kept in the body (R-PEVT-3)',
      valid,
      { method: 'POST', path: 'products-by-id/TNT-2P-GRN/product_event/', body: valid },
    ],
    [
      'a custom id with / goes to the alternative endpoint, slashes kept (R-PEVT-2)',
      { ...valid, custom_id: 'SKU/2024/RED' },
      { method: 'POST', path: 'product-event-creation/SKU/2024/RED/', body: { ...valid, custom_id: 'SKU/2024/RED' } },
    ],
    [
      'each part of a slashed custom id is encoded',
      { ...valid, custom_id: 'a b/c?d#e' },
      { method: 'POST', path: 'product-event-creation/a%20b/c%3Fd%23e/', body: { ...valid, custom_id: 'a b/c?d#e' } },
    ],
    [
      'a custom id with spaces and ? on the standard endpoint',
      { ...valid, custom_id: 'Red tent?' },
      {
        method: 'POST',
        path: 'products-by-id/Red%20tent%3F/product_event/',
        body: { ...valid, custom_id: 'Red tent?' },
      },
    ],
    [
      'by user_id, a null user_custom_id left out',
      { custom_id: 'P1', user_id: 5, user_custom_id: null, event_type: 'order', timestamp: 1, data: {} },
      {
        method: 'POST',
        path: 'products-by-id/P1/product_event/',
        body: { custom_id: 'P1', user_id: 5, event_type: 'order', timestamp: 1, data: {} },
      },
    ],
  ])('%s', (_name, payload, call) => {
    expect(productEvent.toRequest(payload, undefined, {})).toEqual(call);
  });

  it('refuses a payload without its custom id', () => {
    expect(() => productEvent.toRequest({ ...valid, custom_id: undefined }, undefined, {})).toThrow(TypeError);
  });
});

describe('productEvent references', () => {
  it.each([
    [
      valid,
      [
        { kind: 'product', by: 'custom_id', value: 'TNT-2P-GRN' },
        { kind: 'user', by: 'custom_id', value: 'C-10001' },
      ],
    ],
    [
      { custom_id: 'SKU/2024/RED', user_id: 9 },
      [
        { kind: 'product', by: 'custom_id', value: 'SKU/2024/RED' },
        { kind: 'user', by: 'id', value: '9' },
      ],
    ],
    [{}, []],
  ])('parents(%j)', (payload, refs) => {
    expect(productEvent.parents(payload)).toEqual(refs);
  });

  it('is referenced by nothing, and not safe to resend (R-IDEM-3)', () => {
    expect(productEvent.identity(valid, '5')).toEqual([]);
    expect(productEvent.idempotent(undefined)).toBe(false);
    expect(productEvent.stage).toBe('events');
  });
});
