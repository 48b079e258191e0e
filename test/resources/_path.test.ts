import { describe, expect, it } from 'vitest';
import { encodeSegment, encodeSlashed, pathSegment, slashedPath } from '../../src/resources/_path.js';

describe('encodeSegment', () => {
  it.each([
    ['C-10001', 'C-10001'],
    ['anna kowalska?x=1', 'anna%20kowalska%3Fx%3D1'],
    ['a/b', 'a%2Fb'],
    ['100%#', '100%25%23'],
    ['Łódź', '%C5%81%C3%B3d%C5%BA'],
  ])('%j → %s', (value, encoded) => {
    expect(encodeSegment(value)).toBe(encoded);
  });
});

describe('encodeSlashed', () => {
  it.each([
    ['SKU/2024/RED', 'SKU/2024/RED'],
    ['a b/c?d', 'a%20b/c%3Fd'],
    ['trailing/', 'trailing/'],
  ])('%j → %s', (value, encoded) => {
    expect(encodeSlashed(value)).toBe(encoded);
  });
});

describe('pathSegment and slashedPath', () => {
  it.each([
    [pathSegment, 'C-1', undefined],
    [pathSegment, 'a b?', undefined],
    [pathSegment, '.', '"." cannot be sent in a URL path'],
    [pathSegment, '..', '".." cannot be sent in a URL path'],
    [pathSegment, 'bad\uD800', '"bad\\ud800" is not valid Unicode text'],
    [pathSegment, 5, 'expected a string, got 5'],
    [slashedPath, 'SKU/2024/RED', undefined],
    [slashedPath, 'a/../b', '"a/../b" cannot be sent in a URL path (it holds a ".." segment)'],
    [slashedPath, './a', '"./a" cannot be sent in a URL path (it holds a "." segment)'],
  ])('%o(%j) → %s', (rule, value, message) => {
    expect(rule(value)).toBe(message);
  });

  it('a rejected value is one that URL resolution would move elsewhere', () => {
    const base = new URL('https://acme.example.com/api/public/');
    expect(new URL(`products-by-id/${encodeSegment('..')}/product_event/`, base).pathname).toBe(
      '/api/public/product_event/',
    );
    expect(new URL(`products-by-id/${encodeSegment('a b?')}/product_event/`, base).pathname).toBe(
      '/api/public/products-by-id/a%20b%3F/product_event/',
    );
  });
});
