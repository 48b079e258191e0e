/**
 * Events: `GET /events/` (docs/api-contract.md R-EVENT-6, paginated), `POST /events/` (R-EVENT-1) and
 * `POST /users-by-id/:user_custom_id/events/` (§4.6). The user is validated before any other
 * field (§7.2 rule 1): on `/events/` a missing or unknown `user_id` is the only error reported
 * (nested format, §7.3); on the user-scoped endpoint an unknown custom id is a 404 detail. The
 * other fields' errors use the nested format on both endpoints.
 */
import { clientUserMissing, detail, nestedErrors, NO_CLIENT_USER, type FieldErrorMap } from '../errors.js';
import { isRecord, MESSAGES, notAnObject, readDict, readInteger, readString } from '../fields.js';
import type { UserRecord } from '../records.js';
import type { SandboxState } from '../state.js';
import { answer, type EndpointAnswer, type EndpointRequest, type Route } from './route.js';

/** R-EVENT-6: up to 100 results per page. */
export const EVENTS_PAGE_SIZE = 100;

/**
 * The framework's page-number pagination: `?page=N` (1 when absent); `next`/`previous` are full
 * URLs; the link to page 1 carries no `page`. A page that does not exist is a 404 `Invalid page.`.
 */
function listEvents({ state, query, origin }: EndpointRequest): EndpointAnswer {
  const all = state.eventDefinitions();
  const pages = Math.max(1, Math.ceil(all.length / EVENTS_PAGE_SIZE));
  const raw = query.get('page');
  const page = raw === null ? 1 : /^\d+$/.test(raw) ? Number(raw) : raw === 'last' ? pages : Number.NaN;
  if (!Number.isInteger(page) || page < 1 || page > pages) return answer(404, detail('Invalid page.'));
  const link = (n: number) => {
    const params = new URLSearchParams(query);
    if (n === 1) params.delete('page');
    else params.set('page', String(n));
    const search = params.toString();
    return `${origin}/api/public/events/${search === '' ? '' : `?${search}`}`;
  };
  const results = all
    .slice((page - 1) * EVENTS_PAGE_SIZE, page * EVENTS_PAGE_SIZE)
    .map((e) => ({ id: e.id, name: e.name }));
  return answer(200, {
    count: all.length,
    next: page < pages ? link(page + 1) : null,
    previous: page > 1 ? link(page - 1) : null,
    results,
  });
}

function createEvent({ state, body }: EndpointRequest): EndpointAnswer {
  if (!isRecord(body)) return answer(400, nestedErrors({ non_field_errors: [notAnObject(body)] }));
  // §7.2 rule 1: the user first, alone.
  if (!('user_id' in body)) return answer(400, nestedErrors({ user_id: [MESSAGES.required] }));
  if (body.user_id === null) return answer(400, nestedErrors({ user_id: [MESSAGES.null] }));
  const id = readInteger(body.user_id);
  if (!id.ok) return answer(400, nestedErrors({ user_id: [id.error] }));
  const user = state.user(id.value);
  if (user === undefined) return answer(400, nestedErrors({ user_id: [clientUserMissing(id.value)] }));
  return recordEvent(state, user, body);
}

/** §7.3: format 3, 404, whatever the body holds. */
function missingUser(state: SandboxState, params: readonly string[]): EndpointAnswer | undefined {
  return state.userByCustomId(params[0] ?? '') === undefined ? answer(404, detail(NO_CLIENT_USER)) : undefined;
}

function createUserEvent({ state, params, body }: EndpointRequest): EndpointAnswer {
  const user = state.userByCustomId(params[0] ?? '');
  if (user === undefined) return answer(404, detail(NO_CLIENT_USER));
  if (!isRecord(body)) return answer(400, nestedErrors({ non_field_errors: [notAnObject(body)] }));
  return recordEvent(state, user, body);
}

/**
 * The fields after the user (§2.5): `name` required, `data` an object, `timestamp` whole UNIX
 * seconds. `created` is true when this request defined the name (§3); names given in the
 * fixtures are already defined.
 */
function recordEvent(state: SandboxState, user: UserRecord, body: Record<string, unknown>): EndpointAnswer {
  const errors: FieldErrorMap = {};
  let name = '';
  const nameRead = !('name' in body)
    ? { ok: false as const, error: MESSAGES.required }
    : body.name === null
      ? { ok: false as const, error: MESSAGES.null }
      : readString(body.name, { allowBlank: false });
  if (nameRead.ok) name = nameRead.value;
  else errors.name = [nameRead.error];
  let data: Record<string, unknown> | null = null;
  if (body.data !== undefined && body.data !== null) {
    const read = readDict(body.data);
    if (read.ok) data = read.value;
    else errors.data = [read.error];
  }
  let timestamp: number | null = null;
  if (body.timestamp !== undefined && body.timestamp !== null) {
    const read = readInteger(body.timestamp);
    if (read.ok) timestamp = read.value;
    else errors.timestamp = [read.error];
  }
  if (Object.keys(errors).length > 0) return answer(400, nestedErrors(errors));
  const { event, created } = state.defineEvent(name);
  const occurrence = state.addOccurrence({
    event_id: event.id,
    name,
    user_id: user.id,
    data,
    timestamp,
    created_at: state.timestamp(),
  });
  return answer(201, { id: occurrence.id, created }, true);
}

export const eventRoutes: readonly Route[] = [
  { name: 'events/', pattern: /^events\/$/, methods: { GET: listEvents, POST: createEvent } },
  {
    name: 'users-by-id/:user_custom_id/events/',
    pattern: /^users-by-id\/([^/]+)\/events\/$/,
    methods: { POST: createUserEvent },
    pathEntityMissing: missingUser,
  },
];
