import { describe, expect, it } from 'vitest';
import type { ScalarType } from '../../src/mapping/field-spec.js';
import { parseValue } from '../helpers/parse-value.js';
import { field } from './_fields.js';

const list = (items: ScalarType, separator = ',') => field({ type: 'list', items, separator });

describe('list', () => {
  it.each([
    ['a,b,c', 'string', ',', ['a', 'b', 'c']],
    [' a , b ', 'string', ',', ['a', 'b']],
    ['newsletter;family', 'string', ';', ['newsletter', 'family']],
    ['TNT-4P-BLU;SB-SYN-L;STV-GAS-01', 'string', ';', ['TNT-4P-BLU', 'SB-SYN-L', 'STV-GAS-01']],
    ['1;2;3', 'integer', ';', [1, 2, 3]],
    ['1; 2 ;3;', 'integer', ';', [1, 2, 3]],
    ['1;;2', 'integer', ';', [1, 2]],
    ['1.5;2.25', 'number', ';', [1.5, 2.25]],
    ['yes|no', 'boolean', '|', [true, false]],
    ['2026-01-05, 2026-02-01', 'date', ',', ['2026-01-05', '2026-02-01']],
    ['10.5 / 3', 'decimal', '/', ['10.50', '3.00']],
    ['a::b', 'string', '::', ['a', 'b']],
    [';;', 'integer', ';', []],
    ['', 'string', ',', []],
  ] as const)('%j as %s split on %j → %j', (cell, items, separator, value) => {
    expect(parseValue(cell, list(items, separator))).toEqual({ ok: true, value });
  });

  it.each([
    ['1;x;3', 'integer', ';', 'item 2: expected an integer, got "x"'],
    ['1;;1.5', 'integer', ';', 'item 3: expected an integer, got "1.5"'],
    ['1,000;2', 'integer', ';', 'item 1: expected an integer without thousands separators, got "1,000"'],
    ['yes,maybe', 'boolean', ',', 'item 2: expected true/false, yes/no or 1/0, got "maybe"'],
  ] as const)('%j as %s split on %j: %s', (cell, items, separator, message) => {
    expect(parseValue(cell, list(items, separator))).toEqual({ ok: false, message });
  });
});
