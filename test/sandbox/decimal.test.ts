import { describe, expect, it } from 'vitest';
import { toDecimalString } from '../../src/sandbox/decimal.js';

describe('toDecimalString (R-DEAL-9: value is a string holding a decimal number)', () => {
  it.each([
    [0, '0.00'],
    [826.9, '826.90'],
    ['826.90', '826.90'],
    [5420.5, '5420.50'],
    ['1249.5', '1249.50'],
    [0.125, '0.13'],
    [19.995, '20.00'],
    ['19.994', '19.99'],
    [-0.5, '-0.50'],
    [-0.001, '0.00'],
    ['+7', '7.00'],
    ['.5', '0.50'],
    ['5.', '5.00'],
    [1e21, '1000000000000000000000.00'],
    [1e-7, '0.00'],
    ['1.5e3', '1500.00'],
    [999.999, '1000.00'],
    ['  12.3 ', '12.30'],
    ['007', '7.00'],
  ])('%j → %s', (input, want) => {
    expect(toDecimalString(input)).toBe(want);
  });

  it.each([
    ['abc'],
    [''],
    ['1,5'],
    ['1 249,50'],
    [Number.NaN],
    [Number.POSITIVE_INFINITY],
    [true],
    [null],
    [[]],
    ['.'],
    ['1e999'],
  ])('%j is not a number', (input) => {
    expect(toDecimalString(input)).toBeUndefined();
  });

  it('keeps other numbers of places', () => {
    expect(toDecimalString('1.23456', 4)).toBe('1.2346');
    expect(toDecimalString('1.5', 0)).toBe('2');
  });
});
