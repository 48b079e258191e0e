/**
 * `PATCH /webpush-campaign/:id/` (docs/api-contract.md R-PUSH-1): a partial update; `messages`, when given,
 * replaces every message (R-PUSH-2); `category` is accepted and not saved.
 * Field errors use the flat format, every field at once.
 */
import { detail, flatErrors, NOT_FOUND, type FieldErrorMap } from '../errors.js';
import {
  isRecord,
  MESSAGES,
  notAnObject,
  readBoolean,
  readDateTime,
  readInteger,
  readList,
  readString,
  tooSmall,
  type Read,
} from '../fields.js';
import type { WebpushMessage } from '../records.js';
import { pathId } from './_path-id.js';
import { answer, type EndpointAnswer, type EndpointRequest, type Route } from './route.js';

const OPTIONAL_TEXT = ['url', 'doughnut_title', 'doughnut_url', 'coffee_title', 'coffee_url', 'icon', 'badge'] as const;

function updateCampaign({ state, params, body }: EndpointRequest): EndpointAnswer {
  const id = pathId(params[0]);
  const campaign = id === undefined ? undefined : state.campaign(id);
  if (campaign === undefined) return answer(404, detail(NOT_FOUND));
  if (!isRecord(body)) return answer(400, flatErrors({ non_field_errors: [notAnObject(body)] }));

  const errors: FieldErrorMap = {};
  const change: {
    name?: string;
    eta?: string | null;
    ttl?: number | null;
    segment?: number | null;
    messages?: WebpushMessage[];
  } = {};
  const take = <T>(field: string, read: Read<T>, set: (value: T) => void) => {
    if (read.ok) set(read.value);
    else errors[field] = [read.error];
  };
  if ('name' in body)
    take('name', body.name === null ? fail(MESSAGES.null) : readString(body.name), (v) => (change.name = v));
  if ('eta' in body)
    take<string | null>(
      'eta',
      body.eta === null ? { ok: true, value: null } : readDateTime(body.eta),
      (v) => (change.eta = v),
    );
  if ('ttl' in body)
    take<number | null>(
      'ttl',
      body.ttl === null ? { ok: true, value: null } : nonNegative(readInteger(body.ttl)),
      (v) => (change.ttl = v),
    );
  if ('segment' in body)
    take<number | null>(
      'segment',
      body.segment === null ? { ok: true, value: null } : readInteger(body.segment),
      (v) => (change.segment = v),
    );
  if ('messages' in body) {
    const list = body.messages === null ? fail(MESSAGES.null) : readList(body.messages);
    if (!list.ok) errors.messages = [list.error];
    else {
      const items = list.value.map(readMessage);
      if (items.some((i) => !i.ok)) errors.messages = items.map((i) => (i.ok ? {} : i.errors));
      else change.messages = items.map((i) => (i.ok ? i.message : ({} as WebpushMessage)));
    }
  }
  if (Object.keys(errors).length > 0) return answer(400, flatErrors(errors));

  Object.assign(campaign, change);
  return answer(
    200,
    { id: campaign.id, name: campaign.name, category: null, eta: campaign.eta, ttl: campaign.ttl },
    true,
  );
}

/** R-PUSH-2: `title` and `body` required, the rest optional; unknown keys are ignored. */
function readMessage(item: unknown): { ok: true; message: WebpushMessage } | { ok: false; errors: FieldErrorMap } {
  if (!isRecord(item)) return { ok: false, errors: { non_field_errors: [notAnObject(item)] } };
  const errors: FieldErrorMap = {};
  const message: Partial<WebpushMessage> = {};
  for (const field of ['title', 'body'] as const) {
    const read = !(field in item)
      ? fail(MESSAGES.required)
      : item[field] === null
        ? fail(MESSAGES.null)
        : readString(item[field], { allowBlank: false });
    if (read.ok) message[field] = read.value;
    else errors[field] = [read.error];
  }
  for (const field of OPTIONAL_TEXT) {
    if (!(field in item)) continue;
    const read = item[field] === null ? { ok: true as const, value: null } : readString(item[field]);
    if (read.ok) message[field] = read.value;
    else errors[field] = [read.error];
  }
  if ('require_interaction' in item) {
    const read =
      item.require_interaction === null ? { ok: true as const, value: null } : readBoolean(item.require_interaction);
    if (read.ok) message.require_interaction = read.value;
    else errors.require_interaction = [read.error];
  }
  return Object.keys(errors).length > 0 ? { ok: false, errors } : { ok: true, message: message as WebpushMessage };
}

function nonNegative(read: Read<number>): Read<number> {
  return read.ok && read.value < 0 ? fail(tooSmall(0)) : read;
}

function fail(error: string): Read<never> {
  return { ok: false, error };
}

export const webpushRoutes: readonly Route[] = [
  { name: 'webpush-campaign/:id/', pattern: /^webpush-campaign\/(\d+)\/$/, methods: { PATCH: updateCampaign } },
];
