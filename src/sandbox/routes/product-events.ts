/**
 * Product events: `POST /products-by-id/:custom_id/product_event/` (docs/api-contract.md R-PEVT-1) and
 * `POST /product-event-creation/:custom_id/` (§4.3). The product is validated first (§7.2 rule
 * 3: 404 detail whatever the payload holds), then the user (400 for an unknown `user_id`, 404
 * for an unknown `user_custom_id`, both detail strings), then the other fields together in the
 * flat format.
 *
 * Paths are matched after percent-decoding, as the framework does: on the standard path a `/`
 * in the custom id (sent as `%2F` or not) makes the path another one, so it is a 404 Not found;
 * the alternative path takes everything between its prefix and the final `/` (§4.3).
 */
import {
  clientUserMissing,
  detail,
  flatErrors,
  PRODUCT_EVENT_USER_MISSING,
  productMissing,
  type FieldErrorMap,
} from '../errors.js';
import { isRecord, MESSAGES, notAValidChoice, notAnObject, readDict, readInteger, readString } from '../fields.js';
import type { UserRecord } from '../records.js';
import type { SandboxState } from '../state.js';
import { answer, type EndpointAnswer, type EndpointRequest, type Route } from './route.js';

/** R-PEVT-4: the closed list of event types, lowercase, with spaces. */
export const PRODUCT_EVENT_TYPES: ReadonlySet<string> = new Set([
  'click',
  'promo click',
  'view',
  'detail',
  'liking',
  'add to observation',
  'reservation',
  'add',
  'add to cart',
  'remove',
  'checkout',
  'checkout option',
  'order',
  'purchase',
  'return',
  'refund',
]);

/** §7.2 rule 3: the product first, whatever the payload holds. */
function missingProduct(state: SandboxState, params: readonly string[]): EndpointAnswer | undefined {
  const customId = params[0] ?? '';
  return state.productByCustomId(customId) === undefined ? answer(404, detail(productMissing(customId))) : undefined;
}

function createProductEvent({ state, params, body }: EndpointRequest): EndpointAnswer {
  const customId = params[0] ?? '';
  const product = state.productByCustomId(customId);
  if (product === undefined) return answer(404, detail(productMissing(customId)));
  if (!isRecord(body)) return answer(400, flatErrors({ non_field_errors: [notAnObject(body)] }));

  // The user next (§7.2 rule 3): by `user_id` when given, else by `user_custom_id` (§2.6: used alternatively).
  let user: UserRecord | undefined;
  if (body.user_id !== undefined && body.user_id !== null) {
    const id = readInteger(body.user_id);
    if (!id.ok) return answer(400, flatErrors({ user_id: [id.error] }));
    user = state.user(id.value);
    if (user === undefined) return answer(400, detail(clientUserMissing(id.value)));
  } else if (body.user_custom_id !== undefined && body.user_custom_id !== null) {
    const text = readString(body.user_custom_id);
    if (!text.ok) return answer(400, flatErrors({ user_custom_id: [text.error] }));
    user = state.userByCustomId(text.value);
    if (user === undefined) return answer(404, detail(PRODUCT_EVENT_USER_MISSING));
  } else {
    return answer(400, flatErrors({ user_id: ['Either user_id or user_custom_id is required.'] }));
  }

  // §2.6: event_type, data and timestamp are required; all their errors at once.
  const errors: FieldErrorMap = {};
  let eventType = '';
  if (body.event_type === undefined) errors.event_type = [MESSAGES.required];
  else if (body.event_type === null) errors.event_type = [MESSAGES.null];
  else if (typeof body.event_type !== 'string' || !PRODUCT_EVENT_TYPES.has(body.event_type))
    errors.event_type = [notAValidChoice(body.event_type)];
  else eventType = body.event_type;
  let data: Record<string, unknown> = {};
  if (body.data === undefined) errors.data = [MESSAGES.required];
  else if (body.data === null) errors.data = [MESSAGES.null];
  else {
    const read = readDict(body.data);
    if (read.ok) data = read.value;
    else errors.data = [read.error];
  }
  let timestamp = 0;
  if (body.timestamp === undefined) errors.timestamp = [MESSAGES.required];
  else if (body.timestamp === null) errors.timestamp = [MESSAGES.null];
  else {
    const read = readInteger(body.timestamp);
    if (read.ok) timestamp = read.value;
    else errors.timestamp = [read.error];
  }
  if (Object.keys(errors).length > 0) return answer(400, flatErrors(errors));

  // Each product event overwrites the product's attributes with its values (R-PEVT-6): events
  // sent out of time order leave the product with stale ones. `custom_data` stays with the event.
  for (const [key, value] of Object.entries(data)) if (key !== 'custom_data') product.attributes[key] = value;
  const record = state.addProductEvent({
    product_id: product.id,
    product_custom_id: product.custom_id,
    user_id: user.id,
    event_type: eventType,
    data,
    timestamp,
    created_at: state.timestamp(),
  });
  return answer(201, { id: record.id }, true);
}

export const productEventRoutes: readonly Route[] = [
  {
    name: 'products-by-id/:custom_id/product_event/',
    pattern: /^products-by-id\/([^/]+)\/product_event\/$/,
    methods: { POST: createProductEvent },
    pathEntityMissing: missingProduct,
  },
  {
    name: 'product-event-creation/:custom_id/',
    pattern: /^product-event-creation\/(.+)\/$/,
    methods: { POST: createProductEvent },
    pathEntityMissing: missingProduct,
  },
];
