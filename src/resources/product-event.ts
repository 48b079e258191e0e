import { show } from '../text/show.js';
import { Issues, jsonObject, nonEmptyString, unixSeconds, type Rule } from './_checks.js';
import { encodeSegment, encodeSlashed, pathSegment, slashedPath } from './_path.js';
import { pushRef } from './_refs.js';
import { checkUserRef, pushUserRefs, userKeyOf } from './_user-ref.js';
import { didYouMean } from '../text/suggest.js';
import { EVENT_TYPES, isEventType, nearestEventType } from './event-types.js';
import type { ApiCall, EntityRef, ResourceDef } from './resource-def.js';

/** The body of a product event (docs/api-contract.md R-PEVT-3). */
const FIELDS: ReadonlySet<string> = new Set([
  'user_id',
  'user_custom_id',
  'custom_id',
  'data',
  'event_type',
  'timestamp',
]);
const UNKNOWN =
  'is not a field of a product event (custom_id, user_id or user_custom_id, data, event_type, timestamp); custom values go under data.';

/**
 * The product's custom id travels in the path: as one segment, or as the slashed tail of the
 * alternative endpoint (docs/api-contract.md R-PEVT-2).
 */
const productCustomId: Rule = (v) =>
  nonEmptyString(v) ?? (typeof v === 'string' && v.includes('/') ? slashedPath(v) : pathSegment(v));

/** One of the closed list, with the nearest type suggested (`add_to_cart` → `add to cart`). */
const eventType: Rule = (v) => {
  if (typeof v !== 'string') return `expected a string, got ${show(v)}`;
  if (isEventType(v)) return undefined;
  const near = nearestEventType(v);
  return near === undefined
    ? `${show(v)} is not an event type (expected one of ${EVENT_TYPES.join(', ')})`
    : `${show(v)} is not an event type${didYouMean(near)}`;
};

/**
 * Product events: `POST products-by-id/:custom_id/product_event/`, or
 * `POST product-event-creation/:custom_id/` when the custom id holds a `/` (R-PEVT-1, R-PEVT-2).
 */
export const productEvent: ResourceDef = {
  name: 'product-event',
  stage: 'events',

  validate(payload) {
    const issues = new Issues();
    issues.required(payload, 'custom_id', productCustomId);
    checkUserRef(issues, payload, false);
    issues.required(payload, 'data', jsonObject);
    issues.required(payload, 'event_type', eventType);
    issues.required(payload, 'timestamp', unixSeconds);
    issues.unknown(payload, FIELDS, UNKNOWN);
    return issues.list;
  },

  toRequest(payload): ApiCall {
    const customId = payload['custom_id'];
    const key = userKeyOf(payload);
    if (typeof customId !== 'string' || key === undefined) {
      throw new TypeError('product event payload without custom_id or a single user reference: validate it first');
    }
    // custom_id stays in the body: R-PEVT-3 lists it as a body field, besides the path.
    const body: Record<string, unknown> = {};
    const other = key === 'user_id' ? 'user_custom_id' : 'user_id'; // at most a null: leave it out
    for (const [k, v] of Object.entries(payload)) if (k !== other) body[k] = v;
    const path = customId.includes('/')
      ? `product-event-creation/${encodeSlashed(customId)}/`
      : `products-by-id/${encodeSegment(customId)}/product_event/`;
    return { method: 'POST', path, body };
  },

  // R-IDEM-3: creation is not idempotent.
  idempotent: () => false,

  parents(payload) {
    const refs: EntityRef[] = [];
    pushRef(refs, 'product', 'custom_id', payload['custom_id']);
    pushUserRefs(refs, payload);
    return refs;
  },

  identity: () => [],
};
