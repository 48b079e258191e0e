/**
 * `POST /products/` (docs/api-contract.md R-PROD-1): creates a product (201) and
 * answers its record. `custom_id` is required and unique: a second product with the same one is
 * a 400 (the framework's unique-field message). Extra keys are product attributes.
 */
import { flatErrors, type FieldErrorMap } from '../errors.js';
import { bodyEntries, isRecord, MESSAGES, notAnObject, readNumber, readString, type Read } from '../fields.js';
import type { ProductRecord } from '../records.js';
import { answer, type EndpointAnswer, type EndpointRequest, type Route } from './route.js';

type TextField = 'name' | 'category_name' | 'product_url' | 'image_url';
const TEXT_FIELDS = new Set<string>(['name', 'category_name', 'product_url', 'image_url']);
const READ_ONLY = new Set(['id', 'created_at']);

/** What a product body sets, apart from its key; every field error at once. */
export interface ProductRead {
  readonly errors: FieldErrorMap;
  readonly text: Partial<Record<TextField, string | null>>;
  /** Undefined when the body does not set it. */
  readonly price: number | null | undefined;
  readonly attributes: Record<string, unknown>;
}

/** The product fields of `body` other than `custom_id` (docs/api-contract.md R-PROD-1); the bulk import reads its rows through this too. */
export function readProductFields(body: Record<string, unknown>): ProductRead {
  const errors: FieldErrorMap = {};
  const text: Partial<Record<TextField, string | null>> = {};
  const attributes: Record<string, unknown> = {};
  let price: number | null | undefined;
  for (const [field, value] of bodyEntries(body)) {
    if (field === 'custom_id' || READ_ONLY.has(field)) continue;
    if (TEXT_FIELDS.has(field)) {
      const read = value === null ? { ok: true as const, value: null } : readString(value);
      if (read.ok) text[field as TextField] = read.value;
      else errors[field] = [read.error];
    } else if (field === 'price') {
      const read = value === null ? { ok: true as const, value: null } : readNumber(value);
      if (read.ok) price = read.value;
      else errors.price = [read.error];
    } else {
      attributes[field] = value;
    }
  }
  return { errors, text, price, attributes };
}

/** The key of a product body: `custom_id`, required and not blank. */
export function readProductKey(body: Record<string, unknown>): Read<string> {
  return !('custom_id' in body)
    ? fail(MESSAGES.required)
    : body.custom_id === null
      ? fail(MESSAGES.null)
      : readString(body.custom_id, { allowBlank: false });
}

/** Creates the product, or (bulk import: an upsert) replaces the fields `read` sets on `known`. */
export function putProductFields(
  state: EndpointRequest['state'],
  known: ProductRecord | undefined,
  customId: string,
  read: ProductRead,
): ProductRecord {
  const product: ProductRecord = {
    id: known?.id ?? state.newProductId(),
    custom_id: customId,
    name: read.text.name !== undefined ? read.text.name : (known?.name ?? null),
    price: read.price !== undefined ? read.price : (known?.price ?? null),
    category_name: read.text.category_name !== undefined ? read.text.category_name : (known?.category_name ?? null),
    product_url: read.text.product_url !== undefined ? read.text.product_url : (known?.product_url ?? null),
    image_url: read.text.image_url !== undefined ? read.text.image_url : (known?.image_url ?? null),
    attributes: { ...known?.attributes, ...read.attributes },
    created_at: known?.created_at ?? state.timestamp(),
  };
  state.putProduct(product);
  return product;
}

function createProduct({ state, body }: EndpointRequest): EndpointAnswer {
  if (!isRecord(body)) return answer(400, flatErrors({ non_field_errors: [notAnObject(body)] }));
  let key = readProductKey(body);
  if (key.ok && state.productByCustomId(key.value) !== undefined)
    key = fail('product with this custom id already exists.');
  const read = readProductFields(body);
  const errors: FieldErrorMap = key.ok ? read.errors : { custom_id: [key.error], ...read.errors };
  if (!key.ok || Object.keys(errors).length > 0) return answer(400, flatErrors(errors));
  const product = putProductFields(state, undefined, key.value, read);
  const { attributes: extra, ...fixed } = product;
  return answer(201, { ...fixed, ...extra }, true);
}

function fail(error: string): Read<never> {
  return { ok: false, error };
}

export const productRoutes: readonly Route[] = [
  { name: 'products/', pattern: /^products\/$/, methods: { POST: createProduct } },
];
