import type { ResourceName } from '../config/mapping-schema.js';
import { SyncError } from '../errors.js';
import { DOUBT_PREFIX, guardState, PUT_MAPPING, type Db, type StatePlace } from './_state-db.js';
import type { LedgerSyncFeed } from './ledger-feed.js';

/** Deltas read from a ledger and applied per transaction. */
const APPLY_BATCH = 5_000;

/**
 * Brings the state up to date with one run's ledger: applies the deltas it has not applied
 * yet, in the ledger's commit order, each batch in one transaction together with how far it
 * got. Idempotent: calling it again after a crash, or twice, applies nothing twice.
 * Returns the number of deltas applied.
 */
export function applyFeed(db: Db, place: StatePlace, feed: LedgerSyncFeed): number {
  const get = db.prepare<[string], { seq: number; complete: number }>(
    `SELECT seq, complete FROM applied WHERE run_id = ?`,
  );
  const putEntity = db.prepare(
    `INSERT INTO entities (resource, key, hash, run_id, at) VALUES (?, ?, unhex(?), ?, ?)
     ON CONFLICT (resource, key) DO UPDATE SET hash = excluded.hash, run_id = excluded.run_id, at = excluded.at`,
  );
  // An event identity keeps the run that first sent it: a later full refresh does not make it newer news.
  // An event in doubt is kept under `doubt:<run>` until an accepted send of it replaces it; it
  // never replaces an accepted one.
  const putEvent = db.prepare(
    `INSERT INTO events (resource, identity, run_id, at) VALUES (?, unhex(?), ?, ?)
     ON CONFLICT (resource, identity) DO UPDATE SET run_id = excluded.run_id, at = excluded.at WHERE events.run_id LIKE '${DOUBT_PREFIX}%'`,
  );
  const putDoubt = db.prepare(
    `INSERT INTO events (resource, identity, run_id, at) VALUES (?, unhex(?), '${DOUBT_PREFIX}' || ?, ?) ON CONFLICT DO NOTHING`,
  );
  const putMapping = db.prepare(PUT_MAPPING);
  const putApplied = db.prepare(
    `INSERT INTO applied (run_id, seq, complete) VALUES (?, ?, ?) ON CONFLICT (run_id) DO UPDATE SET seq = excluded.seq, complete = excluded.complete`,
  );
  const putMeta = db.prepare(
    `INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value`,
  );
  let applied = 0;
  return guardState(place, () => {
    for (;;) {
      const known = get.get(feed.runId);
      const after = known?.seq ?? 0;
      // A complete run may still grow: `resume --resend-unknown` reopens a finished run and
      // records the rows it resends (its own feed is applied here, catch-up skips it).
      if (known?.complete === 1 && feed.deltasAfter(after, 1).length === 0) return applied;
      const batch = feed.deltasAfter(after, APPLY_BATCH);
      const last = batch.at(-1);
      const complete = batch.length < APPLY_BATCH && feed.finished;
      if (last === undefined && !complete) return applied;
      db.transaction(() => {
        const resources = new Map<ResourceName, string>();
        let prev = after;
        for (const d of batch) {
          if (!(d.seq > prev))
            throw new SyncError(
              'SYNC_STATE',
              `the run ledger of run ${feed.runId} gave its outcomes out of order (${d.seq} after ${prev}); the sync state was not changed`,
            );
          prev = d.seq;
          if (d.kind === 'entity') putEntity.run(d.resource, d.key, d.hash, feed.runId, d.at);
          else if (d.kind === 'doubt') putDoubt.run(d.resource, d.key, feed.runId, d.at);
          else putEvent.run(d.resource, d.key, feed.runId, d.at);
          resources.set(d.resource, d.at);
        }
        for (const [resource, at] of resources) {
          const fingerprint = feed.fingerprints[resource];
          if (fingerprint !== undefined) putMapping.run(resource, fingerprint, feed.runId, at);
        }
        putApplied.run(feed.runId, last?.seq ?? after, complete ? 1 : 0);
        if (last !== undefined) {
          putMeta.run('last_run_id', feed.runId);
          putMeta.run('last_applied_at', last.at);
        }
      })();
      applied += batch.length;
      if (complete || batch.length < APPLY_BATCH) return applied;
    }
  });
}
