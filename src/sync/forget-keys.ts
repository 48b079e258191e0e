import type { ResourceName } from '../config/mapping-schema.js';
import { SyncError } from '../errors.js';
import { guardState, type Db, type StatePlace } from './_state-db.js';
import { identityHash } from './request-hash.js';

/**
 * Forgets what the state knows of a resource, or of one key of it (`C-1001` matches the
 * entity keys `custom_id=C-1001` and `id=C-1001`; an event is named by its identity hash), so
 * the next incremental run sends those rows again. Returns the number of rows forgotten.
 */
export function forgetKeys(db: Db, place: StatePlace, resource: ResourceName, key?: string): number {
  return guardState(place, () =>
    db.transaction(() => {
      if (key === undefined) {
        const n =
          db.prepare(`DELETE FROM entities WHERE resource = ?`).run(resource).changes +
          db.prepare(`DELETE FROM events WHERE resource = ?`).run(resource).changes;
        db.prepare(`DELETE FROM mappings WHERE resource = ?`).run(resource);
        return n;
      }
      // A bare key names `custom_id=K` or `id=K`; when the state holds both (a deal updated by
      // id 42 and another with custom_id 42), guessing could forget the wrong one. A key given
      // whole (`id=42`) is that key, or else a custom_id that reads so (`custom_id=id=42`).
      const holds = (k: string) =>
        db.prepare(`SELECT 1 FROM entities WHERE resource = ? AND key = ?`).get(resource, k) !== undefined;
      const whole = /^(custom_id|id)=/.test(key) && holds(key);
      const named = whole ? [key] : [`custom_id=${key}`, `id=${key}`];
      const held = named.filter(holds);
      if (held.length > 1)
        throw new SyncError(
          'SYNC_STATE',
          `the sync state holds both ${held.join(' and ')} for ${resource}: say which with --key ${held.join(' or --key ')}`,
        );
      const entities =
        held[0] === undefined
          ? 0
          : db.prepare(`DELETE FROM entities WHERE resource = ? AND key = ?`).run(resource, held[0]).changes;
      // Events by identity hash; a deal create by the custom_id it was created with.
      const createdAs = [`custom_id=${key}`, ...(key.startsWith('custom_id=') ? [key] : [])];
      const identities = [key, ...(resource === 'deal' ? createdAs.map((k) => identityHash('deal', [k])) : [])].filter(
        (k) => /^[0-9a-f]{64}$/i.test(k),
      );
      let events = 0;
      for (const identity of identities)
        events += db
          .prepare(`DELETE FROM events WHERE resource = ? AND identity = unhex(?)`)
          .run(resource, identity).changes;
      return entities + events;
    })(),
  );
}
