import { describe, expect, it } from 'vitest';
import { rowValuesFor } from '../../src/source/_row-values.js';

describe('rowValuesFor', () => {
  it('maps each column name to its field, whatever the name holds', () => {
    const header = ['id', '__proto__', 'constructor', '"}); throw new Error("x"); ({"', '\u2028', '0', 'a b'];
    const values = rowValuesFor(header)(['1', '2', '3', '4', '5', '6', '7']);
    expect(Object.entries(values)).toEqual(expect.arrayContaining(header.map((h, i) => [h, String(i + 1)])));
    expect(Object.keys(values)).toHaveLength(header.length);
    expect(Object.getPrototypeOf(values)).toBe(Object.prototype);
  });

  it('builds a fresh object for every record', () => {
    const values = rowValuesFor(['a']);
    const one = values(['1']);
    expect(values(['2'])).toEqual({ a: '2' });
    expect(one).toEqual({ a: '1' });
  });
});
