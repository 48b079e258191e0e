import { Issues, jsonObject, nonEmptyString, unixSeconds } from './_checks.js';
import { encodeSegment } from './_path.js';
import { checkUserRef, pushUserRefs, userKeyOf } from './_user-ref.js';
import type { ApiCall, EntityRef, ResourceDef } from './resource-def.js';

/** The body of an event occurrence (docs/api-contract.md R-EVENT-1), plus the user's custom id that goes in the path. */
const FIELDS: ReadonlySet<string> = new Set(['user_id', 'user_custom_id', 'name', 'data', 'timestamp']);
const UNKNOWN =
  'is not a field of an event (user_id or user_custom_id, name, data, timestamp); custom values go under data.';

/** Custom event occurrences: `POST events/`, or `POST users-by-id/:user_custom_id/events/` (R-EVENT-1, R-EVENT-2). */
export const event: ResourceDef = {
  name: 'event',
  stage: 'events',

  validate(payload) {
    const issues = new Issues();
    checkUserRef(issues, payload, true);
    issues.required(payload, 'name', nonEmptyString);
    issues.optional(payload, 'data', jsonObject);
    issues.optional(payload, 'timestamp', unixSeconds);
    // The body is built from the known fields only: anything else would be dropped in silence.
    issues.unknown(payload, FIELDS, UNKNOWN);
    return issues.list;
  },

  toRequest(payload): ApiCall {
    const key = userKeyOf(payload);
    if (key === undefined)
      throw new TypeError('event payload without exactly one of user_id and user_custom_id: validate it first');
    const body: Record<string, unknown> = {};
    if (key === 'user_id') body['user_id'] = payload['user_id'];
    body['name'] = payload['name'];
    if (payload['data'] !== undefined) body['data'] = payload['data'];
    if (payload['timestamp'] !== undefined) body['timestamp'] = payload['timestamp'];
    if (key === 'user_id') return { method: 'POST', path: 'events/', body };
    return { method: 'POST', path: `users-by-id/${encodeSegment(String(payload['user_custom_id']))}/events/`, body };
  },

  // Sending a row twice records two occurrences (R-IDEM-2).
  idempotent: () => false,

  parents(payload) {
    const refs: EntityRef[] = [];
    pushUserRefs(refs, payload);
    return refs;
  },

  // No row of a later stage refers to an event occurrence.
  identity: () => [],
};
