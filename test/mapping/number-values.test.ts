import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { parseValue } from '../helpers/parse-value.js';
import { field } from './_fields.js';

const ok = (value: unknown) => ({ ok: true, value });
const bad = (message: string) => ({ ok: false, message });

describe('integer', () => {
  it.each([
    ['42', ok(42)],
    ['-7', ok(-7)],
    ['+5', ok(5)],
    ['007', ok(7)],
    ['-0', ok(0)],
    ['  12  ', ok(12)],
    ['9007199254740991', ok(9007199254740991)],
    ['12a', bad('expected an integer, got "12a"')],
    ['1.5', bad('expected an integer, got "1.5"')],
    ['1.0', bad('expected an integer, got "1.0"')],
    ['1e3', bad('expected an integer in plain digits, got "1e3" (a spreadsheet may have rounded it)')],
    ['1.23457E+11', bad('expected an integer in plain digits, got "1.23457E+11" (a spreadsheet may have rounded it)')],
    ['1,000', bad('expected an integer without thousands separators, got "1,000"')],
    // No decimal_comma advice: an integer field refuses that option.
    ['12,5', bad('expected an integer with a decimal point, got "12,5"')],
    ['1 000 000', bad('expected an integer without thousands separators, got "1 000 000"')],
    ["1'000", bad('expected an integer without thousands separators, got "1\'000"')],
    [
      '9007199254740992',
      bad('expected an integer between -9007199254740991 and 9007199254740991, got "9007199254740992"'),
    ],
    ['0x10', bad('expected an integer, got "0x10"')],
    ['24h', bad('expected an integer, got "24h"')],
    ['', bad('expected an integer, got ""')],
  ])('%j → %j', (cell, expected) => {
    expect(parseValue(cell, field({ type: 'integer' }))).toEqual(expected);
  });
});

describe('number', () => {
  it.each([
    ['-1.25', ok(-1.25)],
    ['1e3', ok(1000)],
    ['2.5E-3', ok(0.0025)],
    ['.5', ok(0.5)],
    ['+3', ok(3)],
    ['826.90', ok(826.9)],
    [' 49.00 ', ok(49)],
    ['abc', bad('expected a number, got "abc"')],
    ['1,299.00', bad('expected a number without thousands separators, got "1,299.00"')],
    ['12,5', bad('expected a number with a decimal point (or set decimal_comma: true on the field), got "12,5"')],
    [
      '1 249,50',
      bad(
        'expected a number with a decimal point and no thousands separators (or set decimal_comma: true on the field), got "1 249,50"',
      ),
    ],
    [
      '1.249,50',
      bad(
        'expected a number with a decimal point and no thousands separators (or set decimal_comma: true on the field), got "1.249,50"',
      ),
    ],
    ['1e999', bad('expected a number, got "1e999" (too large)')],
    ['Infinity', bad('expected a number, got "Infinity"')],
    ['NaN', bad('expected a number, got "NaN"')],
    ['0x1F', bad('expected a number, got "0x1F"')],
    ['1.', bad('expected a number, got "1."')],
    ['€12', bad('expected a number, got "€12"')],
  ])('%j → %j', (cell, expected) => {
    expect(parseValue(cell, field({ type: 'number' }))).toEqual(expected);
  });
});

describe('decimal', () => {
  it.each([
    ['12.5', 2, ok('12.50')],
    ['12', 2, ok('12.00')],
    ['12.34', 2, ok('12.34')],
    ['12.340', 2, ok('12.34')],
    ['-3.1', 2, ok('-3.10')],
    ['+3.1', 2, ok('3.10')],
    ['-0.00', 2, ok('0.00')],
    ['.5', 2, ok('0.50')],
    ['0007.5', 2, ok('7.50')],
    ['123456789012345678.99', 2, ok('123456789012345678.99')],
    ['7', 0, ok('7')],
    ['7.000', 0, ok('7')],
    ['1.2345', 4, ok('1.2345')],
    ['12.345', 2, bad('expected at most 2 decimals, got "12.345"')],
    ['12.35', 1, bad('expected at most 1 decimal, got "12.35"')],
    ['12.5', 0, bad('expected a whole number, got "12.5"')],
    ['1e3', 2, bad('expected a decimal number, got "1e3"')],
    ['1,299.00', 2, bad('expected a decimal number without thousands separators, got "1,299.00"')],
    [
      '12,50',
      2,
      bad('expected a decimal number with a decimal point (or set decimal_comma: true on the field), got "12,50"'),
    ],
    ['.', 2, bad('expected a decimal number, got "."')],
    ['-', 2, bad('expected a decimal number, got "-"')],
  ])('%j with %i decimals → %j', (cell, decimals, expected) => {
    expect(parseValue(cell, field({ type: 'decimal', decimals }))).toEqual(expected);
  });
});

describe('decimal_comma: numbers written with a decimal comma', () => {
  const refused = (cell: string) =>
    bad(`expected a number with a decimal comma (such as 1.299,50 or 12,5), got ${JSON.stringify(cell)}`);
  it.each([
    ['12,5', ok(12.5)],
    ['1.299,50', ok(1299.5)],
    ['1 249,50', ok(1249.5)],
    ['1\u00a0249,50', ok(1249.5)],
    ["1'000", ok(1000)],
    ['1.000.000', ok(1000000)],
    ['-3', ok(-3)],
    [' 249,00 ', ok(249)],
    // A point where the comma belongs is refused, never guessed at: 12.5 is no grouping of three digits.
    ['12.5', refused('12.5')],
    ['1.29,50', refused('1.29,50')],
    ['1.299 000,5', refused('1.299 000,5')],
    ['12,', refused('12,')],
    // Nobody groups thousands after a lone 0: a point decimal, refused rather than read as 500.
    ['0.500', refused('0.500')],
    ['-0.250', refused('-0.250')],
    ['0,5', ok(0.5)],
    ['abc', refused('abc')],
  ])('number %j → %j', (cell, expected) => {
    expect(parseValue(cell, field({ type: 'number', decimalComma: true }))).toEqual(expected);
  });

  it('a decimal keeps its digits as text, and a list of numbers reads each element so', () => {
    expect(parseValue('1.299,5', field({ type: 'decimal', decimals: 2, decimalComma: true }))).toEqual(ok('1299.50'));
    expect(parseValue('12,345', field({ type: 'decimal', decimals: 2, decimalComma: true }))).toEqual(
      bad('expected at most 2 decimals, got "12,345"'),
    );
    expect(
      parseValue('1,5; 2.000,25', field({ type: 'list', items: 'number', separator: ';', decimalComma: true })),
    ).toEqual(ok([1.5, 2000.25]));
  });
});

describe('number: no digit lost', () => {
  it.each(['9007199254740993', '12345678901234567890', '1e-400', '0.1000000000000000055511151231257827'])(
    '%s is invalid and the message says what it would become and what to use',
    (cell) => {
      const r = parseValue(cell, field({ type: 'number' })) as { ok: boolean; message: string };
      expect(r.ok).toBe(false);
      expect(r.message).toContain(`which would be sent as ${Number(cell) + 0}`);
      expect(r.message).toContain('use type decimal to send it as text with every digit, or integer');
    },
  );

  it.each([
    ['0.1', 0.1],
    ['1.5e300', 1.5e300],
    ['5e-324', 5e-324],
    ['1.10', 1.1],
    ['9007199254740991', 9007199254740991],
  ])('%s is exact', (cell, value) => {
    expect(parseValue(cell, field({ type: 'number' }))).toEqual(ok(value));
  });
});

describe('number: short cells take the fast path, with the same answer as the digit comparison', () => {
  // Every number of at most 15 characters without an exponent: a double keeps all its digits.
  const digits = fc.stringMatching(/^[0-9]{1,9}$/);
  const short = fc
    .tuple(fc.constantFrom('', '-', '+'), digits, fc.option(digits, { nil: undefined }))
    .map(([sign, whole, frac]) => `${sign}${whole}${frac === undefined ? '' : `.${frac}`}`)
    .filter((text) => text.length <= 15);
  it('accepts every short plain number as written', () => {
    fc.assert(
      fc.property(short, (text) => {
        expect(parseValue(text, field({ type: 'number' }))).toEqual(ok(Number(text) + 0));
      }),
      { seed: 42, numRuns: 500 },
    );
  });
  it('still refuses 16 digits a double cannot hold', () => {
    expect(parseValue('9007199254740993', field({ type: 'number' }))).toMatchObject({ ok: false });
  });
});
