/**
 * One row of a bulk CSV import, applied with the per-row endpoints' own checks (so both paths
 * refuse the same rows): contacts through `readContact`, products through `readProductFields`,
 * deals through `readDeal`. Each is an upsert (docs/api-contract.md R-BULK-5: the importer creates or
 * updates records): contacts by `custom_id`, else by email; products and deals by
 * `custom_id`. An empty cell gives no value for its field, as a field left out of a request.
 */
import type { FieldErrorMap } from '../errors.js';
import { MESSAGES } from '../fields.js';
import type { UserRecord } from '../records.js';
import { readDeal } from '../routes/_deal-fields.js';
import { applyDealChange, emptyDeal } from '../routes/deals.js';
import { putProductFields, readProductFields, readProductKey } from '../routes/products.js';
import { readContact, readContactKey, upsertContact } from '../routes/users.js';
import type { SandboxState } from '../state.js';
import type { ImportKind, ImportRequestOptions } from './import-store.js';

/** Multi-value cells separate their values with `|` (docs/api-contract.md R-BULK-3). */
const MULTI_VALUE_SEPARATOR = '|';

/** The row's outcome: applied, or refused with field errors in the flat format. */
export type RowResult = { readonly ok: true } | { readonly ok: false; readonly errors: FieldErrorMap };

type RowFields = Readonly<Record<string, string>>;

const LIST_FIELDS: Record<ImportKind, ReadonlySet<string>> = {
  users: new Set(['tags']),
  products: new Set(),
  deals: new Set(['participants', 'products', 'products_custom_id']),
};

/**
 * Deals' header names are not published; the docs' example shows `Deal Id` and `Name`. The
 * sandbox takes those two and every API field name (docs/conformance.md).
 */
const DEAL_DISPLAY_NAMES: Readonly<Record<string, string>> = { 'Deal Id': 'custom_id', Name: 'name' };

export function applyRow(
  kind: ImportKind,
  fields: RowFields,
  state: SandboxState,
  options: ImportRequestOptions,
): RowResult {
  const body = toBody(kind, fields);
  if ('errors' in body) return { ok: false, errors: body.errors };
  switch (kind) {
    case 'users':
      return applyContact(body.value, state, options);
    case 'products':
      return applyProduct(body.value, state);
    case 'deals':
      return applyDeal(body.value, state);
  }
}

/** The row as a request body: list cells split on `|`, `order_products` read as JSON. */
function toBody(
  kind: ImportKind,
  fields: RowFields,
): { readonly value: Record<string, unknown> } | { readonly errors: FieldErrorMap } {
  const value: Record<string, unknown> = {};
  for (const [rawField, cell] of Object.entries(fields)) {
    const field = kind === 'deals' ? (DEAL_DISPLAY_NAMES[rawField] ?? rawField) : rawField;
    if (field === '__proto__') continue;
    if (LIST_FIELDS[kind].has(field)) value[field] = cell.split(MULTI_VALUE_SEPARATOR);
    else if (kind === 'deals' && field === 'order_products') {
      try {
        value[field] = JSON.parse(cell) as unknown;
      } catch {
        return { errors: { order_products: ['Value must be valid JSON.'] } };
      }
    } else value[field] = cell;
  }
  return { value };
}

function applyContact(body: Record<string, unknown>, state: SandboxState, options: ImportRequestOptions): RowResult {
  const read = readContact(body, state);
  const errors: FieldErrorMap = { ...read.errors };
  let known: UserRecord | undefined;
  let customId: string | undefined;
  if ('custom_id' in body) {
    const key = readContactKey(body);
    if (key.ok) {
      customId = key.value;
      known = state.userByCustomId(key.value);
    } else errors.custom_id = [key.error];
  }
  // No custom id: the contact with this email, or a new contact known by its email alone.
  const email = customId === undefined && errors.custom_id === undefined ? read.change.email : undefined;
  if (typeof email === 'string') known = state.userByEmail(email);
  // A row that names neither a custom id nor an email names no contact.
  if (customId === undefined && typeof email !== 'string' && errors.custom_id === undefined)
    errors.custom_id = [MESSAGES.required];
  if (Object.keys(errors).length > 0) return { ok: false, errors };
  const tags =
    options.tags.length === 0
      ? read
      : {
          ...read,
          change: { ...read.change, tags: [...new Set([...(read.change.tags ?? known?.tags ?? []), ...options.tags])] },
        };
  upsertContact(state, known, customId ?? known?.custom_id ?? null, tags);
  return { ok: true };
}

function applyProduct(body: Record<string, unknown>, state: SandboxState): RowResult {
  const key = readProductKey(body);
  const read = readProductFields(body);
  const errors: FieldErrorMap = key.ok ? read.errors : { custom_id: [key.error], ...read.errors };
  if (!key.ok || Object.keys(errors).length > 0) return { ok: false, errors };
  putProductFields(state, state.productByCustomId(key.value), key.value, read);
  return { ok: true };
}

function applyDeal(body: Record<string, unknown>, state: SandboxState): RowResult {
  const read = readDeal(body, state);
  if ('errors' in read) return { ok: false, errors: read.errors };
  const at = state.timestamp();
  const customId = read.change.fields.custom_id;
  const known = typeof customId === 'string' && customId !== '' ? state.dealByCustomId(customId) : undefined;
  if (known !== undefined) {
    applyDealChange(known, read.change, at);
    return { ok: true };
  }
  const deal = emptyDeal(state.newDealId(), at);
  applyDealChange(deal, read.change, at);
  state.putDeal(deal);
  return { ok: true };
}
