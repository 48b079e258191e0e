/**
 * Reads a deal body (docs/api-contract.md R-DEAL-2) against the state: every field is checked and every error is
 * collected, so one answer carries them all (R-DEAL-6) in the flat format with
 * the reference messages of §7.4. Keys that are not deal fields are custom attributes (§2.3);
 * the fields that only appear in the answer are read-only and ignored.
 */
import cc from 'currency-codes';
import type { FieldErrorMap } from '../errors.js';
import {
  MESSAGES,
  bodyEntries,
  isRecord,
  notAValidChoice,
  notAnObject,
  pkMissing,
  readDate,
  readDateTime,
  readDecimal,
  readInteger,
  readList,
  readPk,
  readString,
  type Read,
} from '../fields.js';
import type { DealRecord, OrderProduct, UserRecord } from '../records.js';
import type { SandboxState } from '../state.js';

/** The fixed part of a change: the deal fields the body sets, already resolved. */
export type DealFields = Partial<
  Omit<
    DealRecord,
    | 'id'
    | 'restricted_to'
    | 'agent'
    | 'scope'
    | 'created_by'
    | 'created_at'
    | 'updated_at'
    | 'tags'
    | 'loss_reason_description'
  >
>;

export interface DealChange {
  readonly fields: DealFields;
  /** Custom attributes (R-DEAL-2: any other key), any JSON value. */
  readonly attributes: Record<string, unknown>;
}

/** Fields that only appear in the answer (R-DEAL-9: fields present only in the deal response). */
const READ_ONLY = new Set([
  'id',
  'restricted_to',
  'agent',
  'scope',
  'created_by',
  'created_at',
  'updated_at',
  'tags',
  'loss_reason_description',
]);

/** R-DEAL-3: 0 abandoned, 1 in progress, 2 won, 3 lost, 4 archived. */
const STATUSES = new Set([0, 1, 2, 3, 4]);

type Reader = (value: unknown, state: SandboxState) => Read<unknown>;

const ok = <T>(value: T): Read<T> => ({ ok: true, value });
const fail = (error: string): Read<never> => ({ ok: false, error });
const nullable =
  (read: Reader): Reader =>
  (value, state) =>
    value === null ? ok(null) : read(value, state);
const notNull =
  (read: Reader): Reader =>
  (value, state) =>
    value === null ? fail(MESSAGES.null) : read(value, state);

/** ISO 4217 codes as the standard writes them, upper case (the code list itself matches any case). */
const readCurrency: Reader = (value) =>
  typeof value === 'string' && /^[A-Z]{3}$/.test(value) && cc.code(value) !== undefined
    ? ok(value)
    : fail(notAValidChoice(value));

const readStatus: Reader = (value) => {
  const n = readInteger(value);
  return n.ok && STATUSES.has(n.value) ? n : fail(notAValidChoice(value));
};

/** A reference by id that must exist (R-DEAL-7: `Invalid pk "<id>" - object does not exist.`). */
const reference =
  (exists: (state: SandboxState, id: number) => boolean): Reader =>
  (value, state) => {
    const id = readPk(value);
    if (!id.ok) return id;
    return exists(state, id.value) ? id : fail(pkMissing(value));
  };

/** Plain fields: one reader each. */
const SIMPLE: Record<string, Reader> = {
  custom_id: nullable((v) => readString(v)),
  activities_status: nullable((v) => readString(v)),
  assigned_to: nullable(readInteger),
  company_id: nullable(readInteger),
  currency: nullable(readCurrency),
  expected_close_date: nullable(readDate),
  loss_reason: nullable(readInteger),
  lost_at: nullable(readDateTime),
  name: notNull((v) => readString(v)),
  pipeline: nullable(reference((s, id) => s.pipeline(id) !== undefined)),
  stage: nullable(reference((s, id) => s.stage(id) !== undefined)),
  status: notNull(readStatus),
  value: notNull(readDecimal),
  won_at: nullable(readDateTime),
  company_custom_id: nullable((v) => readString(v)),
};

/** Fields read together below (links to users and products, nested order products). */
const LINKED = new Set([
  'participants',
  'products',
  'products_custom_id',
  'user_id',
  'user_custom_id',
  'order_products',
]);

/** Every error of `body` at once, or the change it asks for. */
export function readDeal(
  body: Record<string, unknown>,
  state: SandboxState,
): { readonly errors: FieldErrorMap } | { readonly change: DealChange } {
  const errors: FieldErrorMap = {};
  const fields: Record<string, unknown> = {};
  const attributes: Record<string, unknown> = {};
  for (const [key, value] of bodyEntries(body)) {
    if (READ_ONLY.has(key) || LINKED.has(key)) continue;
    const read = Object.hasOwn(SIMPLE, key) ? SIMPLE[key] : undefined;
    if (read === undefined) {
      attributes[key] = value;
      continue;
    }
    const result = read(value, state);
    if (result.ok) fields[key] = result.value;
    else errors[key] = [result.error];
  }

  // participants: users by id (R-DEAL-2: user ids assigned to the deal).
  if ('participants' in body) {
    const ids = readIdList(body.participants, (id) => state.user(id) !== undefined);
    if (ids.ok) fields.participants = ids.value;
    else errors.participants = ids.errors;
  }

  // user_id / user_custom_id: the deal's user, by either identifier; user_id wins when both are given.
  let user: UserRecord | null | undefined;
  if ('user_custom_id' in body) {
    const value = body.user_custom_id;
    if (value === null) user = null;
    else {
      const text = readString(value);
      if (!text.ok) errors.user_custom_id = [text.error];
      else {
        user = state.userByCustomId(text.value);
        // `object does not exist` / `does not exist`: the framework's wording for a lookup by slug.
        if (user === undefined) errors.user_custom_id = [`Object with custom_id=${text.value} does not exist.`];
      }
    }
  }
  if ('user_id' in body && !(body.user_id === null && user)) {
    const value = body.user_id;
    if (value === null) user = null;
    else {
      const id = readPk(value);
      if (!id.ok) errors.user_id = [id.error];
      else {
        user = state.user(id.value);
        if (user === undefined) errors.user_id = [pkMissing(value)];
      }
    }
  }
  if (user !== undefined) {
    fields.user_id = user?.id ?? null;
    fields.user_custom_id = user?.custom_id ?? null;
  }

  // products / products_custom_id: one list of products, answered under both names.
  if ('products' in body || 'products_custom_id' in body) {
    const productIds: number[] = [];
    let failed = false;
    if ('products' in body) {
      const ids = readIdList(body.products, (id) => state.product(id) !== undefined);
      if (ids.ok) productIds.push(...ids.value);
      else {
        errors.products = ids.errors;
        failed = true;
      }
    }
    if ('products_custom_id' in body) {
      const ids = readCustomIdList(body.products_custom_id, state);
      if (ids.ok) productIds.push(...ids.value);
      else {
        errors.products_custom_id = ids.errors;
        failed = true;
      }
    }
    if (!failed) {
      const unique = [...new Set(productIds)];
      fields.products = unique;
      fields.products_custom_id = unique.map((id) => state.product(id)?.custom_id ?? '');
    }
  }

  if ('order_products' in body) {
    const read = readOrderProducts(body.order_products, state);
    if ('errors' in read) errors.order_products = read.errors;
    else fields.order_products = read.items;
  }

  if (Object.keys(errors).length > 0) return { errors };
  return { change: { fields: fields as DealFields, attributes } };
}

/** A list of ids that must exist; every missing one gets its own message. */
function readIdList(
  value: unknown,
  exists: (id: number) => boolean,
): { ok: true; value: number[] } | { ok: false; errors: string[] } {
  if (value === null) return { ok: false, errors: [MESSAGES.null] };
  const list = readList(value);
  if (!list.ok) return { ok: false, errors: [list.error] };
  const ids: number[] = [];
  const errors: string[] = [];
  for (const item of list.value) {
    const id = readPk(item);
    if (!id.ok) errors.push(id.error);
    else if (!exists(id.value)) errors.push(pkMissing(item));
    else ids.push(id.value);
  }
  return errors.length > 0 ? { ok: false, errors } : { ok: true, value: ids };
}

/** `products_custom_id`: product custom ids that must exist ("object does not exist" otherwise). */
function readCustomIdList(
  value: unknown,
  state: SandboxState,
): { ok: true; value: number[] } | { ok: false; errors: string[] } {
  if (value === null) return { ok: false, errors: [MESSAGES.null] };
  const list = readList(value);
  if (!list.ok) return { ok: false, errors: [list.error] };
  const ids: number[] = [];
  const errors: string[] = [];
  for (const item of list.value) {
    const text = readString(item);
    const product = text.ok ? state.productByCustomId(text.value) : undefined;
    if (!text.ok) errors.push(text.error);
    else if (product === undefined) errors.push(`Invalid custom_id "${text.value}" - object does not exist.`);
    else ids.push(product.id);
  }
  return errors.length > 0 ? { ok: false, errors } : { ok: true, value: ids };
}

/**
 * `order_products` (R-DEAL-8): errors come per item, `{}` for a valid
 * one, as the framework lists them; a product named by id or custom id must exist (§7.4).
 */
function readOrderProducts(value: unknown, state: SandboxState): { items: OrderProduct[] } | { errors: unknown[] } {
  if (value === null) return { errors: [MESSAGES.null] };
  const list = readList(value);
  if (!list.ok) return { errors: [list.error] };
  const items: OrderProduct[] = [];
  const itemErrors: FieldErrorMap[] = [];
  for (const raw of list.value) {
    const errors: FieldErrorMap = {};
    const item: OrderProduct = {
      product_id: null,
      product_custom_id: null,
      currency: null,
      value: null,
      quantity: null,
    };
    if (!isRecord(raw)) {
      itemErrors.push({ non_field_errors: [notAnObject(raw)] });
      continue;
    }
    if (raw.product_id !== undefined && raw.product_id !== null) {
      const id = readPk(raw.product_id);
      const product = id.ok ? state.product(id.value) : undefined;
      if (!id.ok) errors.product_id = [id.error];
      else if (product === undefined)
        errors.product_id = [`Could not find product with id '${String(raw.product_id)}'`];
      else {
        item.product_id = product.id;
        item.product_custom_id = product.custom_id;
      }
    }
    if (raw.product_custom_id !== undefined && raw.product_custom_id !== null) {
      const text = readString(raw.product_custom_id);
      const product = text.ok ? state.productByCustomId(text.value) : undefined;
      if (!text.ok) errors.product_custom_id = [text.error];
      else if (product === undefined)
        errors.product_custom_id = [`Could not find product with custom_id '${text.value}'`];
      else if (item.product_id === null) {
        item.product_id = product.id;
        item.product_custom_id = product.custom_id;
      }
    }
    if (
      (raw.product_id === undefined || raw.product_id === null) &&
      (raw.product_custom_id === undefined || raw.product_custom_id === null)
    ) {
      errors.product_id = ['Either product_id or product_custom_id is required.'];
    }
    const take = <T>(field: 'currency' | 'value' | 'quantity', read: Read<T>) => {
      if (read.ok) (item as unknown as Record<string, unknown>)[field] = read.value;
      else errors[field] = [read.error];
    };
    if (raw.currency !== undefined && raw.currency !== null) take('currency', readCurrency(raw.currency, state));
    if (raw.value !== undefined && raw.value !== null) take('value', readDecimal(raw.value));
    if (raw.quantity !== undefined && raw.quantity !== null) take('quantity', readInteger(raw.quantity));
    itemErrors.push(errors);
    items.push(item);
  }
  return itemErrors.some((e) => Object.keys(e).length > 0) ? { errors: itemErrors } : { items };
}
