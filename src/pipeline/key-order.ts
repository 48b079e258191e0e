import type { ResolvedMapping } from '../config/mapping-schema.js';
import { entityKeyOf } from '../sync/index.js';

/**
 * Keeps the rows of one entity key in file order while other rows go concurrently: a row waits
 * for the earlier row with its key (custom_id, or id) to be answered before it is sent. Without
 * it, two rows of one contact in flight at once could reach the API in either order, and the
 * account end with the earlier row's values (or a product's second create pass, its first fail).
 * Product events are keyed by their product: each one overwrites the product's attributes, so
 * they must arrive in time order (docs/api-contract.md R-PEVT-6), which a 429 or a slow answer
 * would otherwise shuffle. Holds only the keys in flight.
 */
export function keyOrder(mapping: ResolvedMapping) {
  const last = new Map<string, Promise<unknown>>();
  return <T>(payload: Readonly<Record<string, unknown>> | undefined, send: () => Promise<T>): Promise<T> => {
    const key = payload === undefined ? undefined : orderKey(mapping, payload);
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

/** The key whose rows go one at a time, in file order: the entity's, or a product event's product. */
function orderKey(mapping: ResolvedMapping, payload: Readonly<Record<string, unknown>>): string | undefined {
  if (mapping.resource !== 'product-event') return entityKeyOf(mapping.resource, mapping.operation, payload);
  const product = payload['custom_id'];
  return typeof product === 'string' || typeof product === 'number' ? `product=${product}` : undefined;
}
