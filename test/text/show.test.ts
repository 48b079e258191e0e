import { describe, expect, it } from 'vitest';
import { quote, show } from '../../src/text/show.js';

describe('quote and show', () => {
  it.each([
    ['12a', '"12a"'],
    ['', '""'],
    [' x\t', '" x\\t"'],
    ['say "hi"', '"say \\"hi\\""'],
    ['x'.repeat(61), `"${'x'.repeat(60)}…"`],
    ['x'.repeat(60), `"${'x'.repeat(60)}"`],
  ])('quote(%j) → %s', (text, quoted) => {
    expect(quote(text)).toBe(quoted);
  });

  it.each([
    ['a', '"a"'],
    [1.5, '1.5'],
    [true, 'true'],
    [null, 'null'],
    [[1], '[1]'],
  ])('show(%j) → %s', (value, shown) => {
    expect(show(value)).toBe(shown);
  });
});

describe('show on what a payload may hold', () => {
  it.each([
    ['text', '"text"'],
    ['say "hi"', '"say \\"hi\\""'],
    [7, '7'],
    [true, 'true'],
    [null, 'null'],
    [[1, 2], '[1,2]'],
    [{ a: 1 }, '{"a":1}'],
    ['x'.repeat(61), `"${'x'.repeat(60)}…"`],
    [{ long: 'y'.repeat(70) }, `{"long":"${'y'.repeat(51)}…`],
  ])('%j → %s', (value, shown) => {
    expect(show(value)).toBe(shown);
  });

  it('never throws on a value JSON cannot write', () => {
    const cycle: Record<string, unknown> = {};
    cycle['self'] = cycle;
    expect(show(cycle)).toBe('[object Object]');
    expect(show(10n)).toBe('10');
  });
});
