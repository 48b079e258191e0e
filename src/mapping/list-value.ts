import { Invalid, type Converter } from './_converter.js';

/**
 * `list`: the cell split on `separator` (default `,`), each element trimmed and converted as
 * `items`. Empty elements are dropped (`a;b;` and `a;;b` are two elements): a trailing or doubled
 * separator is how spreadsheets join optional values, never a meaningful empty element. A bad
 * element fails the field, named by its position in the cell counting from 1 (`item 3: …`).
 */
export function listValue(item: Converter, separator: string): Converter {
  return {
    text(text) {
      const parts = text.split(separator);
      const values: unknown[] = [];
      for (let i = 0; i < parts.length; i++) {
        const part = (parts[i] ?? '').trim();
        if (part === '') continue;
        const value = item.text(part);
        if (value instanceof Invalid) return new Invalid(`item ${i + 1}: ${value.message}`);
        values.push(value);
      }
      return values;
    },
    scalar(value) {
      // A single value from `map` is a list of one.
      const converted = item.scalar(value);
      return converted instanceof Invalid ? converted : [converted];
    },
  };
}
