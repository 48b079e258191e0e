/**
 * `POST /users/update_or_create/` (docs/api-contract.md R-USER-1): matches the contact
 * on `custom_id`, creates it (201) or updates the fields sent (200), and answers
 * `{created, id}`. Ids are integers, so a user can then be named by `user_id` or by custom id.
 * Field errors use the flat format, every field at once.
 */
import { flatErrors, type FieldErrorMap } from '../errors.js';
import { bodyEntries, isRecord, MESSAGES, notAnObject, readEmail, readList, readString, type Read } from '../fields.js';
import type { UserRecord } from '../records.js';
import { answer, type EndpointAnswer, type EndpointRequest, type Route } from './route.js';

/** R-USER-2: each name at most 40 characters. */
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

/** What a contact body asks to change, apart from its key; every field error at once. */
export interface ContactRead {
  readonly errors: FieldErrorMap;
  readonly change: Partial<Pick<UserRecord, ContactField | 'tags'>>;
  readonly attributes: Record<string, unknown>;
}

/**
 * The contact fields of `body` other than `custom_id`, checked as the service checks them (names
 * at most 40 characters, email, tags, custom attributes that must exist). The bulk import reads
 * its rows through this too, so both paths refuse the same rows.
 */
export function readContact(body: Record<string, unknown>, state: EndpointRequest['state']): ContactRead {
  const errors: FieldErrorMap = {};
  const change: Partial<Pick<UserRecord, ContactField | 'tags'>> = {};
  const attributes: Record<string, unknown> = {};
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
      // R-USER-3: "In version 2, custom attributes must already exist in the account."
      errors[field] = [`Custom attribute "${field}" does not exist in the account.`];
    } else {
      attributes[field] = value;
    }
  }
  return { errors, change, attributes };
}

/** The key of a contact body: `custom_id`, required and not blank. */
export function readContactKey(body: Record<string, unknown>): Read<string> {
  return !('custom_id' in body)
    ? fail(MESSAGES.required)
    : body.custom_id === null
      ? fail(MESSAGES.null)
      : readString(body.custom_id, { allowBlank: false });
}

/** Applies a checked change: the contact with `customId` is updated (false) or created (true). */
export function upsertContact(
  state: EndpointRequest['state'],
  known: UserRecord | undefined,
  customId: string | null,
  read: ContactRead,
): { readonly created: boolean; readonly id: number } {
  const at = state.timestamp();
  if (known !== undefined) {
    Object.assign(known, read.change);
    Object.assign(known.attributes, read.attributes);
    known.updated_at = at;
    return { created: false, id: known.id };
  }
  const user: UserRecord = {
    id: state.newUserId(),
    custom_id: customId,
    email: null,
    first_name: null,
    last_name: null,
    phone_number: null,
    company_custom_id: null,
    tags: [],
    ...read.change,
    attributes: { ...read.attributes },
    created_at: at,
    updated_at: at,
  };
  state.putUser(user);
  return { created: true, id: user.id };
}

function updateOrCreateUser({ state, body }: EndpointRequest): EndpointAnswer {
  if (!isRecord(body)) return answer(400, flatErrors({ non_field_errors: [notAnObject(body)] }));
  const key = readContactKey(body);
  const read = readContact(body, state);
  const errors: FieldErrorMap = key.ok ? read.errors : { custom_id: [key.error], ...read.errors };
  if (!key.ok || Object.keys(errors).length > 0) return answer(400, flatErrors(errors));
  const result = upsertContact(state, state.userByCustomId(key.value), key.value, read);
  return answer(result.created ? 201 : 200, result, true);
}

function fail(error: string): Read<never> {
  return { ok: false, error };
}

export const userRoutes: readonly Route[] = [
  { name: 'users/update_or_create/', pattern: /^users\/update_or_create\/$/, methods: { POST: updateOrCreateUser } },
];
