/**
 * The CSV a bulk upload carries: UTF-8, comma-separated, a header of the API's field names
 * (users, products) or of the names a deal mapping gives per field (`bulk_header:`, because the
 * deal importer's names are not published), one line per valid payload. Multi-value cells join
 * their values with `|` (docs/api-contract.md R-BULK-3). Pure: the caller streams the lines into the chunk file.
 *
 * A bulk cell cannot say everything a JSON body can: an empty cell means "no value" to the
 * importer, so a payload that sends `null`, `""` or `[]` (to clear a field) cannot go by bulk
 * with the same meaning, nor can a list element that holds `|`. Such a payload is refused here
 * with a reason, and the caller sends that row per row instead, so both paths give it the same
 * status.
 */
import { stringify } from 'csv-stringify/sync';

/** Values of a multi-value cell are separated by this (docs/api-contract.md R-BULK-3: multi-value cells separate their values with `|`). */
export const BULK_LIST_SEPARATOR = '|';

/** One column of a chunk file: the payload's top-level key and the header the importer knows it by. */
export interface BulkColumn {
  readonly field: string;
  readonly header: string;
  /** The importer reads the cell as a list, split on `|` (a contact's tags, a deal's participants). */
  readonly list?: boolean;
}

/** The fields each importer splits into a list: any other value there is sent per row, where the API says what it makes of it. */
const LIST_FIELDS: Readonly<Record<'user' | 'product' | 'deal', ReadonlySet<string>>> = {
  user: new Set(['tags']),
  product: new Set(),
  deal: new Set(['participants', 'products', 'products_custom_id']),
};

/** Why a payload cannot be written as a bulk line. */
export type UnwritableReason =
  | 'null'
  | 'empty-string'
  | 'empty-list'
  | 'separator-in-list'
  | 'nested-list'
  | 'not-a-list'
  | 'unknown-field';

export type BulkLine =
  | { readonly ok: true; readonly text: string }
  | { readonly ok: false; readonly field: string; readonly reason: UnwritableReason; readonly message: string };

const FORMAT = { delimiter: ',', record_delimiter: 'unix', quote_record_delimiter: true } as const;
const NEEDS_QUOTES = /[",\r\n]/;

/** The header line (with its `\n`). */
export function headerLine(columns: readonly BulkColumn[]): string {
  return csvLine(columns.map((c) => c.header));
}

/**
 * The line of one payload (with its `\n`), cells in column order; a key the columns do not name
 * is refused (the columns come from the mapping's fields, so that is a caller's bug surfaced as data).
 */
export function payloadLine(columns: readonly BulkColumn[], payload: Readonly<Record<string, unknown>>): BulkLine {
  const known = new Set(columns.map((c) => c.field));
  for (const field of Object.keys(payload)) {
    if (!known.has(field))
      return { ok: false, field, reason: 'unknown-field', message: `${field}: no bulk column for this field` };
  }
  const cells: string[] = [];
  for (const { field, list } of columns) {
    const value = payload[field];
    if (value === undefined) {
      cells.push('');
      continue;
    }
    // The importer would split a text on `|` and accept it as a list, where a request refuses it.
    if (list === true && !Array.isArray(value))
      return {
        ok: false,
        field,
        reason: 'not-a-list',
        message: 'the bulk importer reads this field as a list; a single value goes per row',
      };
    const cell = cellText(value);
    if (typeof cell !== 'string') return { ok: false, field, ...cell };
    cells.push(cell);
  }
  return { ok: true, text: csvLine(cells) };
}

/** The first field of a payload whose value no CSV cell carries (`null`, `""`, `[]`, …), as `[field, value]`. */
export function uncarriedField(payload: Readonly<Record<string, unknown>>): [string, unknown] | undefined {
  return Object.entries(payload).find(([, value]) => value !== undefined && typeof cellText(value) !== 'string');
}

/** A value as its cell's text, or why it has none. */
export function cellText(value: unknown): string | { readonly reason: UnwritableReason; readonly message: string } {
  if (value === null)
    return { reason: 'null', message: 'null cannot be sent by bulk import (an empty cell means "no value")' };
  if (typeof value === 'string')
    return value === ''
      ? {
          reason: 'empty-string',
          message: 'an empty text cannot be sent by bulk import (an empty cell means "no value")',
        }
      : value;
  if (typeof value === 'number' || typeof value === 'boolean' || typeof value === 'bigint') return String(value);
  if (Array.isArray(value)) {
    if (value.length === 0)
      return {
        reason: 'empty-list',
        message: 'an empty list cannot be sent by bulk import (an empty cell means "no value")',
      };
    // A list of objects (a deal's order_products) is one JSON cell; a list of values is joined with `|`.
    if (value.every((v) => v !== null && typeof v === 'object' && !Array.isArray(v))) return JSON.stringify(value);
    const parts: string[] = [];
    for (const item of value) {
      if (item === null || typeof item === 'object')
        return { reason: 'nested-list', message: 'a list of lists or of mixed values cannot be one bulk cell' };
      const text = String(item);
      if (text.includes(BULK_LIST_SEPARATOR) || text === '')
        return {
          reason: 'separator-in-list',
          message: `a list value that is empty or holds "${BULK_LIST_SEPARATOR}" cannot be one bulk cell`,
        };
      parts.push(text);
    }
    return parts.join(BULK_LIST_SEPARATOR);
  }
  // An object (a custom attribute holding JSON) is its JSON text.
  return JSON.stringify(value);
}

/** RFC 4180 as csv-stringify writes it; rows without a quote, comma, CR or LF skip the library (most rows). */
function csvLine(cells: readonly string[]): string {
  for (const cell of cells) if (NEEDS_QUOTES.test(cell)) return stringify([cells as string[]], FORMAT);
  return `${cells.join(',')}\n`;
}

/**
 * The columns of a chunk file from the mapping's target fields (their top-level keys, once each,
 * in mapping order). Users and products: the header is the field name. Deals: `headers` must name
 * one for every field (the mapping's `bulk_header:`); the fields without one are answered instead.
 */
export function bulkColumns(
  resource: 'user' | 'product' | 'deal',
  targets: readonly string[],
  headers: Readonly<Record<string, string>> = {},
): { readonly columns: BulkColumn[] } | { readonly missingHeaders: string[] } {
  const fields = [...new Set(targets.map((t) => t.split('.')[0]!))];
  const column = (field: string, header: string): BulkColumn =>
    LIST_FIELDS[resource].has(field) ? { field, header, list: true } : { field, header };
  if (resource !== 'deal') return { columns: fields.map((field) => column(field, headers[field] ?? field)) };
  const missing = fields.filter((f) => headers[f] === undefined || headers[f] === '');
  if (missing.length > 0) return { missingHeaders: missing };
  return { columns: fields.map((field) => column(field, headers[field]!)) };
}
