import { show } from '../text/show.js';
import { integer, isGiven, nonEmptyString, type Issues } from './_checks.js';
import { pathSegment } from './_path.js';
import { pushRef } from './_refs.js';
import type { EntityRef, Payload } from './resource-def.js';

/** How an event names its user: exactly one of the two keys (docs/api-contract.md R-EVENT-1, R-EVENT-2, R-PEVT-3). */
export type UserKey = 'user_id' | 'user_custom_id';

/** The key the payload names its user by, when it gives exactly one. */
export function userKeyOf(payload: Payload): UserKey | undefined {
  const byId = isGiven(payload['user_id']);
  const byCustomId = isGiven(payload['user_custom_id']);
  if (byId === byCustomId) return undefined;
  return byId ? 'user_id' : 'user_custom_id';
}

/**
 * Exactly one of `user_id` (integer) and `user_custom_id` (non-empty string). `inPath`: the
 * custom id becomes a path segment of `users-by-id/:user_custom_id/events/`, which cannot carry a
 * `/` (R-BASE-6 in docs/api-contract.md: the product endpoint of the same shape has an
 * alternative for it, R-PEVT-2; the user-scoped one has none).
 */
export function checkUserRef(issues: Issues, payload: Payload, inPath: boolean): void {
  const byId = isGiven(payload['user_id']);
  const byCustomId = isGiven(payload['user_custom_id']);
  // Reported on user_custom_id: mappings name users by custom id far more often. When either
  // cell is what failed, the mapping engine's own message for that field takes precedence.
  if (!byId && !byCustomId) issues.add('user_custom_id', 'is required (or user_id)', ['user_id']);
  if (byId && byCustomId) issues.add('user_id', 'give either user_id or user_custom_id, not both');
  issues.optional(payload, 'user_id', integer);
  issues.optional(payload, 'user_custom_id', nonEmptyString);
  const customId = payload['user_custom_id'];
  if (inPath && byCustomId && !byId && typeof customId === 'string' && customId.trim() !== '') {
    const message = customId.includes('/')
      ? `${show(customId)} holds a "/", which the users-by-id endpoint cannot carry (map the user's id to user_id instead)`
      : pathSegment(customId);
    if (message !== undefined) issues.add('user_custom_id', message);
  }
}

/** The user an event belongs to, as a parent reference. */
export function pushUserRefs(refs: EntityRef[], payload: Payload): void {
  pushRef(refs, 'user', 'id', payload['user_id']);
  pushRef(refs, 'user', 'custom_id', payload['user_custom_id']);
}
