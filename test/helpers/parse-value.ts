import { Invalid } from '../../src/mapping/_converter.js';
import { converterFor, type ValueSpec } from '../../src/mapping/parse-value.js';

/** A converted cell, or the message that says why it could not be converted. */
export type ValueResult = { readonly ok: true; readonly value: unknown } | { readonly ok: false; readonly message: string };

const compiled = new WeakMap<ValueSpec, ReturnType<typeof converterFor>>();

/**
 * Convert one cell's text as `spec` says, for tests of one value type at a time. Spaces around
 * the cell are trimmed except for `string`, as the row mapper does. Never throws for any cell
 * text: a bad value comes back as `{ ok: false, message }`.
 */
export function parseValue(raw: string, spec: ValueSpec): ValueResult {
  let converter = compiled.get(spec);
  if (converter === undefined) {
    converter = converterFor(spec);
    compiled.set(spec, converter);
  }
  const value = converter.text(spec.type === 'string' ? raw : raw.trim());
  return value instanceof Invalid ? { ok: false, message: value.message } : { ok: true, value };
}
