/**
 * Deals (docs/api-contract.md R-DEAL-1): `POST /deals/`, `POST /deals/update_or_create/` (keyed on
 * `custom_id`), `PATCH` and `PUT /deals/:id/`, `PUT /deals-by-id/:custom_id/`. Every answer is the full record of §2.3; every
 * field error is in the flat format, all at once (§7.2 rule 2).
 */
import { detail, flatErrors, NOT_FOUND } from '../errors.js';
import { isRecord, MESSAGES, notAnObject, readString } from '../fields.js';
import type { DealRecord } from '../records.js';
import type { SandboxState } from '../state.js';
import { readDeal, type DealChange } from './_deal-fields.js';
import { pathId } from './_path-id.js';
import { answer, type EndpointAnswer, type EndpointRequest, type Route } from './route.js';

/**
 * R-DEAL-4: a deal created from `{}` has name "", value 0.00 and status 1. `scope` and
 * `created_by` are integers whose meaning is not shown: the sandbox answers 1 for both.
 */
export function emptyDeal(id: number, at: string): DealRecord {
  return {
    id,
    custom_id: null,
    activities_status: null,
    assigned_to: null,
    company_id: null,
    currency: null,
    expected_close_date: null,
    loss_reason: null,
    lost_at: null,
    name: '',
    participants: [],
    pipeline: null,
    products: [],
    products_custom_id: [],
    stage: null,
    status: 1,
    user_id: null,
    value: '0.00',
    won_at: null,
    user_custom_id: null,
    company_custom_id: null,
    order_products: [],
    restricted_to: null,
    agent: null,
    scope: 1,
    created_by: 1,
    created_at: at,
    updated_at: at,
    tags: [],
    loss_reason_description: '',
    custom_attribute_xyz: null,
  };
}

/** Sets the change's fields and custom attributes on `deal` (also used by the bulk import). */
export function applyDealChange(deal: DealRecord, change: DealChange, at: string): void {
  Object.assign(deal, change.fields);
  // Custom attributes keep their keys after the fixed ones; a later update overwrites a value.
  for (const [key, value] of Object.entries(change.attributes)) deal[key] = value;
  deal.updated_at = at;
}

function create(state: SandboxState, change: DealChange): EndpointAnswer {
  const at = state.timestamp();
  const deal = emptyDeal(state.newDealId(), at);
  applyDealChange(deal, change, at);
  state.putDeal(deal);
  return answer(201, deal, true);
}

function createDeal({ state, body }: EndpointRequest): EndpointAnswer {
  if (!isRecord(body)) return answer(400, flatErrors({ non_field_errors: [notAnObject(body)] }));
  const read = readDeal(body, state);
  if ('errors' in read) return answer(400, flatErrors(read.errors));
  return create(state, read.change);
}

/** Idempotent (R-IDEM-1): the deal with this `custom_id` is updated, else created. */
function updateOrCreateDeal({ state, body }: EndpointRequest): EndpointAnswer {
  if (!isRecord(body)) return answer(400, flatErrors({ non_field_errors: [notAnObject(body)] }));
  const read = readDeal(body, state);
  const errors = 'errors' in read ? { ...read.errors } : {};
  const key = !('custom_id' in body)
    ? { ok: false as const, error: MESSAGES.required }
    : body.custom_id === null
      ? { ok: false as const, error: MESSAGES.null }
      : readString(body.custom_id, { allowBlank: false });
  if (!key.ok) errors.custom_id = [key.error];
  if (Object.keys(errors).length > 0 || 'errors' in read || !key.ok) return answer(400, flatErrors(errors));
  const deal = state.dealByCustomId(key.value);
  if (deal === undefined) return create(state, read.change);
  applyDealChange(deal, read.change, state.timestamp());
  return answer(200, deal, true);
}

/** PATCH and PUT behave alike: every field is optional (R-DEAL-1), so a PUT changes only what it sends. */
function updateDeal(request: EndpointRequest): EndpointAnswer {
  const id = pathId(request.params[0]);
  return updateFound(request, id === undefined ? undefined : request.state.deal(id));
}

/** By custom id: the oldest deal with it, as update_or_create finds it; none is a 404, nothing is created. */
function updateDealByCustomId(request: EndpointRequest): EndpointAnswer {
  return updateFound(request, request.state.dealByCustomId(request.params[0] ?? ''));
}

function updateFound({ state, body }: EndpointRequest, deal: DealRecord | undefined): EndpointAnswer {
  if (deal === undefined) return answer(404, detail(NOT_FOUND));
  if (!isRecord(body)) return answer(400, flatErrors({ non_field_errors: [notAnObject(body)] }));
  const read = readDeal(body, state);
  if ('errors' in read) return answer(400, flatErrors(read.errors));
  applyDealChange(deal, read.change, state.timestamp());
  return answer(200, deal, true);
}

/** Ids in the path are integers (the URL table's int converter): `deals/abc/` is no endpoint, a 404. */
export const dealRoutes: readonly Route[] = [
  { name: 'deals/', pattern: /^deals\/$/, methods: { POST: createDeal } },
  { name: 'deals/update_or_create/', pattern: /^deals\/update_or_create\/$/, methods: { POST: updateOrCreateDeal } },
  { name: 'deals/:id/', pattern: /^deals\/(\d+)\/$/, methods: { PATCH: updateDeal, PUT: updateDeal } },
  { name: 'deals-by-id/:custom_id/', pattern: /^deals-by-id\/([^/]+)\/$/, methods: { PUT: updateDealByCustomId } },
];
