import { show } from '../text/show.js';
import { boolean, datetime, integer, isPlainObject, Issues, nonEmptyString, string, type Rule } from './_checks.js';
import type { ApiCall, Payload, ResourceDef } from './resource-def.js';

/**
 * The body of a campaign update (docs/api-contract.md R-PUSH-1), plus `id` for the path and `category`, deprecated
 * but accepted (R-PUSH-3). A campaign has no custom attributes: a key
 * outside this list is a typo that the service would ignore, so the row would change nothing.
 */
const FIELDS: ReadonlySet<string> = new Set(['id', 'name', 'category', 'eta', 'ttl', 'segment', 'messages']);
const UNKNOWN = 'is not a field of a webpush campaign (id, name, eta, ttl, segment, messages)';

/** Message fields other than title and body (R-PUSH-2): all strings but one. */
const MESSAGE_FIELDS: readonly (readonly [string, Rule])[] = [
  ['url', string],
  ['require_interaction', boolean],
  ['doughnut_title', string],
  ['doughnut_url', string],
  ['coffee_title', string],
  ['coffee_url', string],
  ['icon', string],
  ['badge', string],
];
const MESSAGE_KEYS: ReadonlySet<string> = new Set(['title', 'body', ...MESSAGE_FIELDS.map(([k]) => k)]);
const UNKNOWN_MESSAGE_KEY = `is not a field of a webpush message (${[...MESSAGE_KEYS].join(', ')})`;

const seconds: Rule = (v) =>
  Number.isSafeInteger(v) && (v as number) >= 0 ? undefined : `expected whole seconds, 0 or more, got ${show(v)}`;

function checkMessages(issues: Issues, payload: Payload): void {
  const messages = payload['messages'];
  if (messages === undefined || messages === null) return;
  if (!Array.isArray(messages)) {
    issues.add('messages', `expected a list of messages, got ${show(messages)}`);
    return;
  }
  // The list replaces every message of the campaign (R-PUSH-2): an empty one deletes them all.
  if (messages.length === 0)
    issues.add('messages', 'must hold at least one message (an empty list deletes every message of the campaign)');
  messages.forEach((message: unknown, i) => {
    const prefix = `messages.${i}.`;
    if (!isPlainObject(message)) {
      issues.add(`messages.${i}`, `expected a message object, got ${show(message)}`);
      return;
    }
    issues.required(message, 'title', nonEmptyString, prefix);
    issues.required(message, 'body', nonEmptyString, prefix);
    for (const [key, rule] of MESSAGE_FIELDS) issues.optional(message, key, rule, prefix);
    issues.unknown(message, MESSAGE_KEYS, UNKNOWN_MESSAGE_KEY, prefix);
  });
}

/** Updates of existing campaigns: `PATCH webpush-campaign/:id/` (R-PUSH-1). */
export const webpushCampaign: ResourceDef = {
  name: 'webpush-campaign',
  stage: 'webpush',

  validate(payload) {
    const issues = new Issues();
    issues.required(payload, 'id', integer);
    issues.optional(payload, 'name', string);
    issues.optional(payload, 'eta', datetime);
    issues.optional(payload, 'ttl', seconds);
    issues.optional(payload, 'segment', integer);
    checkMessages(issues, payload);
    issues.unknown(payload, FIELDS, UNKNOWN);
    return issues.list;
  },

  toRequest(payload): ApiCall {
    const id = payload['id'];
    if (!Number.isSafeInteger(id))
      throw new TypeError('webpush campaign payload without an integer id: validate it first');
    // The id is in the path; a partial update changes only the fields sent (R-PUSH-1).
    const { id: _, ...body } = payload;
    return { method: 'PATCH', path: `webpush-campaign/${String(id)}/`, body };
  },

  // A PATCH by id with the same body leaves the same campaign, however often it is sent.
  idempotent: () => true,

  // Campaigns and segments are not created by an import: nothing to wait for.
  parents: () => [],
  identity: () => [],
};
