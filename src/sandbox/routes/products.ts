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

function createProduct({ state, body }: EndpointRequest): EndpointAnswer {
  if (!isRecord(body)) return answer(400, flatErrors({ non_field_errors: [notAnObject(body)] }));
  const errors: FieldErrorMap = {};
  const text: Partial<Record<TextField, string | null>> = {};
  const attributes: Record<string, unknown> = {};
  let price: number | null = null;

  let key: Read<string> = !('custom_id' in body) ? fail(MESSAGES.required) : body.custom_id === null ? fail(MESSAGES.null) : readString(body.custom_id, { allowBlank: false });
  if (key.ok && state.productByCustomId(key.value) !== undefined) key = fail('product with this custom id already exists.');
  if (!key.ok) errors.custom_id = [key.error];
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
  if (!key.ok || Object.keys(errors).length > 0) return answer(400, flatErrors(errors));

  const product: ProductRecord = {
    id: state.newProductId(),
    custom_id: key.value,
    name: text.name ?? null,
    price,
    category_name: text.category_name ?? null,
    product_url: text.product_url ?? null,
    image_url: text.image_url ?? null,
    attributes,
    created_at: state.timestamp(),
  };
  state.putProduct(product);
  const { attributes: extra, ...fixed } = product;
  return answer(201, { ...fixed, ...extra }, true);
}

function fail(error: string): Read<never> {
  return { ok: false, error };
}

export const productRoutes: readonly Route[] = [{ name: 'products/', pattern: /^products\/$/, methods: { POST: createProduct } }];
