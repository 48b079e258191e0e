import { describe, expect, it } from 'vitest';
import { quote, show } from '../../src/mapping/_converter.js';

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
