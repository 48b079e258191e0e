import { describe, expect, it } from 'vitest';
import { parseValue } from '../helpers/parse-value.js';
import { field } from './_fields.js';

describe('json', () => {
  it.each([
    ['{"a":1}', { a: 1 }],
    [' {"session":"s-7f3a","referrer":"newsletter"} ', { session: 's-7f3a', referrer: 'newsletter' }],
    ['{"nested":{"list":[1,2]},"flag":true,"none":null}', { nested: { list: [1, 2] }, flag: true, none: null }],
    ['{}', {}],
  ])('%j → %j', (cell, value) => {
    expect(parseValue(cell, field({ type: 'json' }))).toEqual({ ok: true, value });
  });

  it.each([
    ['{session: s-2b77}', 'expected a JSON object, got "{session: s-2b77}" (not valid JSON)'],
    ['[1,2]', 'expected a JSON object, got "[1,2]" (an array)'],
    ['42', 'expected a JSON object, got "42" (a number)'],
    ['"text"', 'expected a JSON object, got "\\"text\\"" (a string)'],
    ['true', 'expected a JSON object, got "true" (a boolean)'],
    ['null', 'expected a JSON object, got "null" (null)'],
    ['{"a":1', 'expected a JSON object, got "{\\"a\\":1" (not valid JSON)'],
    [`{"long":"${'x'.repeat(80)}"`, `expected a JSON object, got "{\\"long\\":\\"${'x'.repeat(51)}…" (not valid JSON)`],
  ])('%j is rejected', (cell, message) => {
    expect(parseValue(cell, field({ type: 'json' }))).toEqual({ ok: false, message });
  });

  it('keeps a "__proto__" key as data, without touching any prototype', () => {
    const result = parseValue('{"__proto__":{"polluted":true}}', field({ type: 'json' }));
    expect(result.ok && JSON.stringify(result.value)).toBe('{"__proto__":{"polluted":true}}');
    expect(({} as Record<string, unknown>)['polluted']).toBeUndefined();
  });
});

describe('json: nothing changed silently, nothing too deep', () => {
  it.each([
    ['{"a":1,"a":2}', 'the key "a" is given twice in the JSON object (keep one)'],
    [
      '{"id":12345678901234567890}',
      'the number 12345678901234567890 in this JSON would be sent as 12345678901234567000 (a JSON number keeps about 15 significant digits): write it as a string, in quotes',
    ],
    [
      '{"tiny":1e-400}',
      'the number 1e-400 in this JSON would be sent as 0 (a JSON number keeps about 15 significant digits): write it as a string, in quotes',
    ],
    [
      `{"a":${'['.repeat(5000)}${']'.repeat(5000)}}`,
      'expected a JSON object nested at most 64 levels deep, got one nested more than 64',
    ],
  ])('%s is invalid', (cell, message) => {
    expect(parseValue(cell, field({ type: 'json' }))).toEqual({ ok: false, message });
  });

  it('keeps exact numbers and brackets inside strings', () => {
    expect(parseValue('{"a":[0.1,9007199254740991],"s":"[[[{"}', field({ type: 'json' }))).toEqual({
      ok: true,
      value: { a: [0.1, 9007199254740991], s: '[[[{' },
    });
  });
});
