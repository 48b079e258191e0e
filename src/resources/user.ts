import { Issues, nonEmptyString, stringOfAtMost } from './_checks.js';
import { pushRef } from './_refs.js';
import type { ApiCall, EntityRef, ResourceDef } from './resource-def.js';

/** The platform keeps at most 40 characters of each name (docs/api-contract.md R-USER-2). */
export const MAX_NAME_LENGTH = 40;
const name = stringOfAtMost(MAX_NAME_LENGTH);

/**
 * Contacts: `POST users/update_or_create/`, matched on `custom_id` (R-USER-1).
 * Fields other than the checked ones (email, phone_number, tags, custom attributes) are passed
 * through as mapped: in API version 2 the service itself checks that custom attributes exist.
 */
export const user: ResourceDef = {
  name: 'user',
  stage: 'contacts',

  validate(payload) {
    const issues = new Issues();
    issues.required(payload, 'custom_id', nonEmptyString);
    issues.optional(payload, 'first_name', name);
    issues.optional(payload, 'last_name', name);
    return issues.list;
  },

  toRequest: (payload): ApiCall => ({ method: 'POST', path: 'users/update_or_create/', body: { ...payload } }),

  // R-IDEM-1: update_or_create is safe to retry after a network failure.
  idempotent: () => true,

  parents: () => [],

  identity(payload, responseId) {
    const refs: EntityRef[] = [];
    pushRef(refs, 'user', 'custom_id', payload['custom_id']);
    pushRef(refs, 'user', 'id', responseId);
    return refs;
  },
};
