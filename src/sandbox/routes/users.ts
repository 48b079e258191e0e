/**
 * `POST /users/update_or_create/` (see docs/api-contract.md, contacts): matches the contact
 * on `custom_id`, creates it (201) or updates the fields sent (200), and answers
 * `{created, id}`. Ids are integers, so a user can then be named by `user_id` or by custom id.
 * Field errors use the flat format, every field at once.
 */
import { flatErrors, type FieldErrorMap } from '../errors.js';
import { bodyEntries, isRecord, MESSAGES, notAnObject, readEmail, readList, readString, type Read } from '../fields.js';
import type { UserRecord } from '../records.js';
import { answer, type EndpointAnswer, type EndpointRequest, type Route } from './route.js';

/** Tag names are at most 40 characters each. */
const NAME_MAX = 40;
const READ_ONLY = new Set(['id', 'created', 'created_at', 'updated_at']);
type ContactField = 'email' | 'first_name' | 'last_name' | 'phone_number' | 'company_custom_id';
const CONTACT_FIELDS: Record<ContactField, (value: unknown) => Read<string>> = {
  email: readEmail,
  first_name: (v) => readString(v, { maxLength: NAME_MAX }),
  last_name: (v) => readString(v, { maxLength: NAME_MAX }),
  phone_number: (v) => readString(v),
  company_custom_id: (v) => readString(v),
};

function updateOrCreateUser({ state, body }: EndpointRequest): EndpointAnswer {
  if (!isRecord(body)) return answer(400, flatErrors({ non_field_errors: [notAnObject(body)] }));
  const errors: FieldErrorMap = {};
  const change: Partial<Pick<UserRecord, ContactField | 'tags'>> = {};
  const attributes: Record<string, unknown> = {};

  const key = !('custom_id' in body) ? fail(MESSAGES.required) : body.custom_id === null ? fail(MESSAGES.null) : readString(body.custom_id, { allowBlank: false });
  if (!key.ok) errors.custom_id = [key.error];
  for (const [field, value] of bodyEntries(body)) {
    if (field === 'custom_id' || READ_ONLY.has(field)) continue;
    if (Object.hasOwn(CONTACT_FIELDS, field)) {
      const read = value === null ? { ok: true as const, value: null } : CONTACT_FIELDS[field as ContactField](value);
      if (read.ok) change[field as ContactField] = read.value;
      else errors[field] = [read.error];
    } else if (field === 'tags') {
      const list = value === null ? { ok: true as const, value: [] } : readList(value);
      if (!list.ok) errors.tags = [list.error];
      else {
        const tags = list.value.map((t) => readString(t, { allowBlank: false }));
        const bad = tags.find((t) => !t.ok);
        if (bad !== undefined && !bad.ok) errors.tags = [bad.error];
        else change.tags = tags.map((t) => (t.ok ? t.value : ''));
      }
    } else if (state.userAttributes !== undefined && !state.userAttributes.has(field)) {
      // In version 2 of the API, custom attributes must already exist in the account.
      errors[field] = [`Custom attribute "${field}" does not exist in the account.`];
    } else {
      attributes[field] = value;
    }
  }
  if (!key.ok || Object.keys(errors).length > 0) return answer(400, flatErrors(errors));

  const at = state.timestamp();
  const known = state.userByCustomId(key.value);
  if (known !== undefined) {
    Object.assign(known, change);
    Object.assign(known.attributes, attributes);
    known.updated_at = at;
    return answer(200, { created: false, id: known.id }, true);
  }
  const user: UserRecord = {
    id: state.newUserId(),
    custom_id: key.value,
    email: null,
    first_name: null,
    last_name: null,
    phone_number: null,
    company_custom_id: null,
    tags: [],
    ...change,
    attributes,
    created_at: at,
    updated_at: at,
  };
  state.putUser(user);
  return answer(201, { created: true, id: user.id }, true);
}

function fail(error: string): Read<never> {
  return { ok: false, error };
}

export const userRoutes: readonly Route[] = [{ name: 'users/update_or_create/', pattern: /^users\/update_or_create\/$/, methods: { POST: updateOrCreateUser } }];
