import { parse } from 'lossless-json';
import { jsonDepth } from '../json-depth.js';
import { quote, show } from '../text/show.js';
import { Invalid, type Converter } from './_converter.js';
import { isExactNumber } from './number-values.js';

/**
 * Nesting allowed in a `json` cell. Deeper values are refused in validation, so that `validate`
 * and the live run agree, and no later step (the payloads file, the request body) recurses
 * through a cell a few kilobytes long but thousands of levels deep.
 */
export const MAX_JSON_DEPTH = 64;

function kind(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return `a ${typeof value}`;
}

/** A number of a cell that a double would change: the parse stops at the first one. */
class InexactNumber extends Error {
  constructor(readonly text: string) {
    super(text);
  }
}

/**
 * `json`: a JSON object in a cell (`{"a":1}`), for fields such as event `data` or product event
 * `custom_data` that the API defines as JSON objects. Arrays and scalars are rejected: the API
 * wants an object there, and `[1]` or `"x"` in such a column is a mistake. Nothing is changed on
 * the way: a key given twice with different values, or a number a double cannot hold
 * (`12345678901234567890`), is an error rather than a value silently dropped or rounded.
 */
export const jsonValue: Converter = {
  text(text) {
    const depth = jsonDepth(text, MAX_JSON_DEPTH);
    if (depth > MAX_JSON_DEPTH)
      return new Invalid(
        `expected a JSON object nested at most ${MAX_JSON_DEPTH} levels deep, got one nested more than ${MAX_JSON_DEPTH}`,
      );
    let value: unknown;
    try {
      value = parse(text, undefined, (digits) => {
        if (!isExactNumber(digits)) throw new InexactNumber(digits);
        return Number(digits) + 0;
      });
    } catch (error) {
      if (error instanceof InexactNumber) {
        return new Invalid(
          `the number ${error.text} in this JSON would be sent as ${Number(error.text) + 0} (a JSON number keeps about 15 significant digits): write it as a string, in quotes`,
        );
      }
      const duplicate = /^Duplicate key '(.*)' encountered/.exec((error as Error).message);
      if (duplicate)
        return new Invalid(`the key ${JSON.stringify(duplicate[1])} is given twice in the JSON object (keep one)`);
      return new Invalid(`expected a JSON object, got ${quote(text)} (not valid JSON)`);
    }
    if (typeof value === 'object' && value !== null && !Array.isArray(value)) return value;
    return new Invalid(`expected a JSON object, got ${quote(text)} (${kind(value)})`);
  },
  scalar(value) {
    return new Invalid(`expected a JSON object, got ${show(value)}`);
  },
};
