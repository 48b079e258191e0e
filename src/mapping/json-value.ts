import { Invalid, quote, show, type Converter } from './_converter.js';

function kind(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return `a ${typeof value}`;
}

/**
 * `json`: a JSON object in a cell (`{"a":1}`), for fields such as event `data` or product event
 * `custom_data` that api.md §2.5–2.6 define as JSON objects. Arrays and scalars are rejected:
 * the API wants an object there, and `[1]` or `"x"` in such a column is a mistake.
 */
export const jsonValue: Converter = {
  text(text) {
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      return new Invalid(`expected a JSON object, got ${quote(text)} (not valid JSON)`);
    }
    if (typeof value === 'object' && value !== null && !Array.isArray(value)) return value;
    return new Invalid(`expected a JSON object, got ${quote(text)} (${kind(value)})`);
  },
  scalar(value) {
    return new Invalid(`expected a JSON object, got ${show(value)}`);
  },
};
