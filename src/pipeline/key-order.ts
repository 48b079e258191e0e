import type { ResolvedMapping } from '../config/mapping-schema.js';
import { entityKeyOf } from '../sync/index.js';

/**
 * Keeps the rows of one entity key in file order while other rows go concurrently: a row waits
 * for the earlier row with its key (custom_id, or id) to be answered before it is sent. Without
 * it, two rows of one contact in flight at once could reach the API in either order, and the
 * account end with the earlier row's values (or a product's second create pass, its first fail).
 * Holds only the keys in flight.
 */
export function keyOrder(mapping: ResolvedMapping) {
  const last = new Map<string, Promise<unknown>>();
  return <T>(payload: Readonly<Record<string, unknown>> | undefined, send: () => Promise<T>): Promise<T> => {
    const key = payload === undefined ? undefined : entityKeyOf(mapping.resource, mapping.operation, payload);
    if (key === undefined) return send();
    const earlier = last.get(key);
    const sent =
      earlier === undefined
        ? send()
        : earlier.then(
            () => send(),
            () => send(),
          );
    last.set(key, sent);
    const forget = () => {
      if (last.get(key) === sent) last.delete(key);
    };
    sent.then(forget, forget);
    return sent;
  };
}
