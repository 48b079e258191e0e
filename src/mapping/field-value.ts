import type { ResolvedField } from './field-spec.js';
import { ConfigError } from '../errors.js';
import { didYouMean, nearest } from '../text/suggest.js';
import { quote } from '../text/show.js';
import { Invalid, type Converter } from './_converter.js';
import { converterFor } from './parse-value.js';

/** Returned by a field reader when the field is left out of the payload (`empty: omit`). */
export const OMIT: unique symbol = Symbol('omit');

/** A row's cells by column name, as the CSV source yields them. */
export type RowValues = Readonly<Record<string, string>>;

/** Reads one field of a row: its value, `OMIT`, or an `Invalid` with the user's message. */
export type FieldReader = (values: RowValues) => unknown;

const REQUIRED = new Invalid('is required');
/** Keys listed in a "not in the map" message before it says how many more there are. */
const LISTED_KEYS = 12;

/** Objects and arrays are copied per row: rows must not share (and mutate) one object. */
const fresh = (value: unknown): unknown =>
  typeof value === 'object' && value !== null ? structuredClone(value) : value;

/**
 * The `map` of a field, with its values converted once, up front: a lookup then costs one `Map.get`.
 * A cell matches a key exactly or, failing that, ignoring case (`Won` finds `won`) unless two
 * keys differ only in case.
 */
function compileMap(field: ResolvedField, convert: Converter, map: NonNullable<ResolvedField['map']>) {
  const exact = new Map<string, unknown>();
  const folded = new Map<string, unknown>();
  const ambiguous = new Set<string>();
  for (const [key, raw] of Object.entries(map)) {
    let value: unknown = null;
    if (raw !== null) {
      value = typeof raw === 'string' ? convert.text(field.type === 'string' ? raw : raw.trim()) : convert.scalar(raw);
      if (value instanceof Invalid) throw new ConfigError('CONFIG_INVALID', `map.${key}: ${value.message}`);
    }
    exact.set(key, value);
    const lower = key.toLowerCase();
    if (folded.has(lower)) ambiguous.add(lower);
    folded.set(lower, value);
  }
  for (const lower of ambiguous) folded.delete(lower);
  const keys = [...exact.keys()];
  const listed = keys
    .slice(0, LISTED_KEYS)
    .map((k) => JSON.stringify(k))
    .join(', ');
  const allowed = keys.length > LISTED_KEYS ? `${listed} and ${keys.length - LISTED_KEYS} more` : listed;

  /** The mapped value; `undefined` when the cell is not a key. */
  const lookup = (text: string): unknown =>
    exact.get(text) ?? (exact.has(text) ? null : folded.get(text.toLowerCase()));
  const notFound = (text: string): Invalid => {
    return new Invalid(`expected one of ${allowed}, got ${quote(text)}${didYouMean(nearest(text, keys))}`);
  };
  return { lookup, notFound };
}

/** An id: a target `id` or ending in `_id` (`custom_id`, `user_custom_id`). */
const ID_TARGET = /(?:^|[._])id$/;

/**
 * Whether spaces around a cell are removed: as the field says, else yes for ids (an id with a
 * space becomes a different record, `/users-by-id/%20P2/`) and for every type but `string`.
 */
export function trimsCell(field: ResolvedField): boolean {
  return field.trim ?? (field.type !== 'string' || ID_TARGET.test(field.target));
}

/**
 * Compile the rules of one `ResolvedField`:
 * - `constant`: used as it is, for every row;
 * - else the cell of `column`, trimmed (a `string` keeps its spaces unless `map` reads it, it is
 *   an id, or `trim: true`);
 * - `map` is applied first to the trimmed cell: a cell that is not a key is an error listing the
 *   keys; a `null` result is sent as `null`; other results are converted by `type`;
 * - an empty cell (only spaces, or a list with no elements) takes `default` (a string default is
 *   converted by `type`; others are used as they are); else `is required` when `required`; else
 *   `empty: omit` leaves the field out and `empty: null` sends `null`.
 * @throws ConfigError for a default, a map value, a zone or a date format that cannot be used.
 * Message without the file; compileMapping adds it.
 */
export function fieldReader(field: ResolvedField): FieldReader {
  const column = field.column;
  if (column === undefined) {
    const constant = field.constant;
    return typeof constant === 'object' && constant !== null ? () => structuredClone(constant) : () => constant;
  }
  const convert = converterFor(field);
  const keepSpaces = !trimsCell(field);
  const isList = field.type === 'list';

  let emptyValue: unknown = field.empty === 'null' ? null : OMIT;
  if (field.required) emptyValue = REQUIRED;
  if (field.default !== undefined) {
    emptyValue =
      typeof field.default === 'string'
        ? convert.text(keepSpaces ? field.default : field.default.trim())
        : field.default;
    if (emptyValue instanceof Invalid) throw new ConfigError('CONFIG_INVALID', `default: ${emptyValue.message}`);
  }
  const whenEmpty =
    typeof emptyValue === 'object' && emptyValue !== null && !(emptyValue instanceof Invalid)
      ? () => fresh(emptyValue)
      : () => emptyValue;
  const map = field.map === undefined ? undefined : compileMap(field, convert, field.map);

  return (values) => {
    const cell = values[column];
    if (typeof cell !== 'string') {
      // checkHeader guarantees every column before row 1 (config/load-mapping.ts): a bug if not.
      throw new Error(
        `mapRow: column ${JSON.stringify(column)} of field ${JSON.stringify(field.target)} is not in the row`,
      );
    }
    const text = cell.trim();
    let value: unknown;
    if (map !== undefined) {
      value = map.lookup(text);
      if (value === undefined) return text === '' ? whenEmpty() : map.notFound(text);
      value = fresh(value);
    } else {
      if (text === '') return whenEmpty();
      value = convert.text(keepSpaces ? cell : text);
    }
    if (isList && Array.isArray(value) && value.length === 0) return whenEmpty();
    return value;
  };
}
