import type { ScalarType, ValueType } from './field-spec.js';
import { Invalid, type Converter } from './_converter.js';
import { booleanValue } from './boolean-value.js';
import { dateValue, datetimeValue, unixValue, type DateSpec } from './date-values.js';
import { jsonValue } from './json-value.js';
import { listValue } from './list-value.js';
import { decimalValue, integerValue, numberValue, withDecimalComma } from './number-values.js';

/** How a cell is converted: the value options of a `ResolvedField`, which satisfies this type. */
export interface ValueSpec extends DateSpec {
  readonly type: ValueType;
  /** Element type of a `list`. Default `string` (resolved by the loader). */
  readonly items: ScalarType;
  /** Separator of a `list` cell. Default `,`. */
  readonly separator: string;
  /** Digits after the point of a `decimal`. Default 2. */
  readonly decimals: number;
  /** `number` and `decimal` cells are written with a decimal comma (`1.299,50`). */
  readonly decimalComma?: true;
}

/** `string`: the cell as it is, spaces included (names and free text are not touched). */
const stringValue: Converter = {
  text: (text) => text,
  scalar: (value) => String(value),
};

function scalarConverter(type: ScalarType, spec: ValueSpec): Converter {
  switch (type) {
    case 'string':
      return stringValue;
    case 'integer':
      return integerValue;
    case 'number':
      return spec.decimalComma === true ? withDecimalComma(numberValue) : numberValue;
    case 'decimal':
      return spec.decimalComma === true ? withDecimalComma(decimalValue(spec.decimals)) : decimalValue(spec.decimals);
    case 'boolean':
      return booleanValue;
    case 'date':
      return dateValue(spec);
    case 'datetime':
      return datetimeValue(spec);
    case 'unix':
      return unixValue(spec);
    case 'json':
      return jsonValue;
  }
}

/**
 * The converter of a value spec, built once per field: patterns, zones and date parsers are
 * prepared here so that converting a cell only runs them.
 * @throws ConfigError for a time zone or date format that cannot be used (the loader checks both
 * first, with `checkTimezone` and `checkDateFormat`, to report them with file and line).
 */
export function converterFor(spec: ValueSpec): Converter {
  return spec.type === 'list'
    ? listValue(scalarConverter(spec.items, spec), spec.separator)
    : scalarConverter(spec.type, spec);
}

/** A converted cell, or the message that says why it could not be converted. */
export type ValueResult =
  | { readonly ok: true; readonly value: unknown }
  | { readonly ok: false; readonly message: string };

const compiled = new WeakMap<ValueSpec, Converter>();

/**
 * Convert one cell's text as `spec` says, one value at a time (`init` tries candidate types on a
 * sample this way). Spaces around the cell are trimmed except for `string`, as the row mapper
 * does. Never throws for any cell text: a bad value comes back as `{ ok: false, message }`.
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
