import { Issues, listOf, nonEmptyString, stringOfAtMost, text } from './_checks.js';
import { pushRef } from './_refs.js';
import type { ApiCall, EntityRef, ResourceDef } from './resource-def.js';

/** The platform keeps at most 40 characters of each name (docs/api-contract.md R-USER-2). */
export const MAX_NAME_LENGTH = 40;
const name = stringOfAtMost(MAX_NAME_LENGTH);

/**
 * Contacts: `POST users/update_or_create/`, matched on `custom_id` (R-USER-1).
 * Custom attributes are passed through as mapped: in API version 2 the service itself checks that
 * they exist. The contact's own fields are checked for their type.
 */
/** The contact fields the API reads as text (docs/api-contract.md R-USER-2). */
const TEXT_FIELDS = ['email', 'phone_number', 'company_custom_id'] as const;

export const user: ResourceDef = {
  name: 'user',
  stage: 'contacts',

  validate(payload) {
    const issues = new Issues();
    issues.required(payload, 'custom_id', nonEmptyString);
    issues.optional(payload, 'first_name', name);
    issues.optional(payload, 'last_name', name);
    // A boolean or an object a mapping gives them is refused per row, while a bulk cell would carry
    // it as text: checked here, both paths call the row invalid alike.
    for (const field of TEXT_FIELDS) issues.optional(payload, field, text);
    issues.optional(payload, 'tags', listOf(text));
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
