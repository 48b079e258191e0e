import { describe, expect, it } from 'vitest';
import { pushRef, pushRefs, refValue, uniqueRefs } from '../../src/resources/_refs.js';
import type { EntityRef } from '../../src/resources/index.js';

describe('refValue', () => {
  it.each([
    ['C-1', 'C-1'],
    [42, '42'],
    ['', undefined],
    [1.5, undefined],
    [null, undefined],
    [undefined, undefined],
    [{ id: 1 }, undefined],
  ])('%j → %j', (value, text) => {
    expect(refValue(value)).toBe(text);
  });

  it.each([
    [42, '42'],
    ['42', '42'],
    ['C-1', undefined],
    ['', undefined],
  ])('by id: %j → %j', (value, text) => {
    expect(refValue(value, 'id')).toBe(text);
  });
});

describe('pushRef, pushRefs, uniqueRefs', () => {
  it('keeps what names an entity, once, in first-seen order', () => {
    const refs: EntityRef[] = [];
    pushRef(refs, 'user', 'id', 7);
    pushRef(refs, 'user', 'id', null);
    pushRefs(refs, 'product', 'custom_id', ['A', '', 'B', 'A', 3]);
    pushRefs(refs, 'product', 'id', 'not a list');
    pushRef(refs, 'user', 'id', '7');
    expect(uniqueRefs(refs)).toEqual([
      { kind: 'user', by: 'id', value: '7' },
      { kind: 'product', by: 'custom_id', value: 'A' },
      { kind: 'product', by: 'custom_id', value: 'B' },
      { kind: 'product', by: 'custom_id', value: '3' },
    ]);
  });
});
