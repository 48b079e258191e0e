import { describe, expect, it } from 'vitest';
import type { FieldError } from '../../src/mapping/field-error.js';
import { product } from '../../src/resources/product.js';

const e = (field: string, message: string): FieldError => ({ field, message });

describe('product.validate (R-PROD-1)', () => {
  it.each<[string, Record<string, unknown>, FieldError[]]>([
    [
      'a full product',
      { custom_id: 'TNT-2P-GRN', name: 'Tent', price: 249, category_name: 'Tents', product_url: 'u', image_url: 'i' },
      [],
    ],
    ['a custom id with a slash', { custom_id: 'SKU/2024/RED' }, []],
    ['price null', { custom_id: 'A', price: null }, []],
    ['no custom id', { name: 'Gift card' }, [e('custom_id', 'is required')]],
    ['price as text', { custom_id: 'A', price: '1,299.00' }, [e('price', 'expected a number, got "1,299.00"')]],
    [
      'a text field given a boolean or a number (a bulk cell would carry it as text)',
      { custom_id: 'A', name: true, category_name: 7, image_url: null },
      [e('name', 'expected a string, got true'), e('category_name', 'expected a string, got 7')],
    ],
    [
      'every error at once',
      { custom_id: '', price: [1] },
      [e('custom_id', 'must not be empty, got ""'), e('price', 'expected a number, got [1]')],
    ],
  ])('%s', (_name, payload, errors) => {
    expect(product.validate(payload, undefined)).toEqual(errors);
  });
});

describe('product routing, idempotency, references', () => {
  it('POSTs to products/ with the payload as mapped', () => {
    const payload = { custom_id: 'SKU/2024/RED', name: 'Lamp', price: 69 };
    expect(product.toRequest(payload, undefined, {})).toEqual({ method: 'POST', path: 'products/', body: payload });
  });

  it('is not safe to resend and runs first', () => {
    expect(product.idempotent(undefined)).toBe(false);
    expect(product.stage).toBe('products');
    expect(product.parents({ custom_id: 'A' })).toEqual([]);
  });

  it.each([
    [{ custom_id: 'SKU/2024/RED' }, undefined, [{ kind: 'product', by: 'custom_id', value: 'SKU/2024/RED' }]],
    [
      { custom_id: 'A' },
      '9',
      [
        { kind: 'product', by: 'custom_id', value: 'A' },
        { kind: 'product', by: 'id', value: '9' },
      ],
    ],
    [{ name: 'no sku' }, undefined, []],
  ])('identity(%j, %j)', (payload, responseId, refs) => {
    expect(product.identity(payload, responseId)).toEqual(refs);
  });
});
