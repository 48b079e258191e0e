import { Issues, nonEmptyString, number, string } from './_checks.js';
import { pushRef } from './_refs.js';
import type { ApiCall, EntityRef, ResourceDef } from './resource-def.js';

/**
 * Products: `POST products/` (docs/api-contract.md R-PROD-1). Deals and product events name them by custom id,
 * so it is required; other fields (name, category_name, product_url, image_url, product
 * attributes: R-PROD-1) are passed through as mapped.
 */
/** The product fields the API reads as text (docs/api-contract.md R-PROD-1). */
const TEXT_FIELDS = ['name', 'category_name', 'product_url', 'image_url'] as const;

export const product: ResourceDef = {
  name: 'product',
  stage: 'products',

  validate(payload) {
    const issues = new Issues();
    issues.required(payload, 'custom_id', nonEmptyString);
    issues.optional(payload, 'price', number);
    // Text fields: a boolean or a number a mapping gives them is refused per row, while a bulk
    // cell would carry it as text; checked here, both paths call the row invalid alike.
    for (const field of TEXT_FIELDS) issues.optional(payload, field, string);
    return issues.list;
  },

  toRequest: (payload): ApiCall => ({ method: 'POST', path: 'products/', body: { ...payload } }),

  // A plain create, not one of the update_or_create endpoints that R-IDEM-1
  // calls safe to retry: sent twice, it may create the product twice.
  idempotent: () => false,

  // `custom_id` is unique: a second create with it is a 400 naming that field, "product with this
  // custom id already exists." (the framework's unique-field message).
  refusesDuplicateCreate: (status, bodyText) => status === 400 && customIdExists(bodyText),

  refusedAsExisting: (message) => /product with this custom id already exists/i.test(message),

  parents: () => [],

  identity(payload, responseId) {
    const refs: EntityRef[] = [];
    pushRef(refs, 'product', 'custom_id', payload['custom_id']);
    pushRef(refs, 'product', 'id', responseId);
    return refs;
  },
};

function customIdExists(bodyText: string): boolean {
  try {
    const body = JSON.parse(bodyText) as { custom_id?: unknown };
    return (
      Array.isArray(body.custom_id) && body.custom_id.some((m) => typeof m === 'string' && /already exists/i.test(m))
    );
  } catch {
    return false;
  }
}
