import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { classifyRow } from '../../src/sync/classify.js';
import type { SyncDelta } from '../../src/sync/ledger-feed.js';
import { requestHash } from '../../src/sync/request-hash.js';
import { RunKeys } from '../../src/sync/run-keys.js';
import type { SyncKey } from '../../src/sync/sync-key.js';
import { fakeFeed, tempState } from './_feed.js';

/**
 * A model of nightly runs: each run reads a file of events and contacts, classifies every row
 * against the state, "sends" the rows to send to an API that accepts or refuses each one at
 * random, and hands the accepted ones to the state as a run ledger would. Whatever the files and
 * answers: the API records each event identity at most once and every identity it accepted is
 * in the state; each contact ends with the request of the last accepted row, which the state holds.
 */
const eventRow = fc.record({
  kind: fc.constant('event' as const),
  name: fc.constantFrom('a', 'b', 'c', 'd'),
  at: fc.integer({ min: 1, max: 4 }),
});
const contactRow = fc.record({
  kind: fc.constant('contact' as const),
  id: fc.constantFrom('C-1', 'C-2', 'C-3'),
  plan: fc.constantFrom('free', 'pro'),
});
const run = fc.record({
  rows: fc.array(fc.oneof(eventRow, contactRow), { maxLength: 12 }),
  accepted: fc.array(fc.boolean(), { minLength: 12, maxLength: 12 }),
});

function keyOf(
  row: { kind: 'event'; name: string; at: number } | { kind: 'contact'; id: string; plan: string },
): SyncKey {
  if (row.kind === 'event') {
    const hash = requestHash({ method: 'POST', path: 'events/', body: { name: row.name, timestamp: row.at } });
    return { resource: 'event', kind: 'event', key: hash, hash };
  }
  return {
    resource: 'user',
    kind: 'entity',
    key: `custom_id=${row.id}`,
    hash: requestHash({ method: 'POST', path: 'users/update_or_create/', body: { custom_id: row.id, plan: row.plan } }),
  };
}

describe('incremental runs (model)', () => {
  it('never records an event twice, never forgets an accepted one, and keeps each contact at its last accepted request', () => {
    fc.assert(
      fc.property(fc.array(run, { minLength: 1, maxLength: 5 }), (runs) => {
        const t = tempState();
        try {
          const recorded: string[] = [];
          const contacts = new Map<string, string>();
          runs.forEach((r, n) => {
            const keys = new RunKeys();
            const planned = r.rows.map((row, i) => ({ key: keyOf(row), place: { source: 0, line: i + 2 } }));
            for (const p of planned) keys.noteEntity(p.key, p.place);
            const stored = t.state.lookup(planned.map((p) => p.key));
            const accepted: Omit<SyncDelta, 'seq' | 'at'>[] = [];
            const wins = keys.winners(
              planned.map((p) => p.key),
              0,
              planned.map((p) => p.place.line),
            );
            planned.forEach((p, i) => {
              const win = wins[i];
              const c = classifyRow(p.key, stored[i], win && { where: `line ${win.line}` }, 'incremental');
              if (!c.send || !r.accepted[i]) return;
              if (p.key.kind === 'event') recorded.push(p.key.key);
              else contacts.set(p.key.key, p.key.hash);
              accepted.push({ resource: p.key.resource, kind: p.key.kind, key: p.key.key, hash: p.key.hash });
            });
            keys.close();
            t.state.apply(fakeFeed(`run-${n}`, accepted));
          });
          expect(new Set(recorded).size).toBe(recorded.length);
          const events = t.state.lookup(
            [...new Set(recorded)].map((k) => ({ resource: 'event', kind: 'event', key: k, hash: k })),
          );
          expect(events.every((e) => e !== undefined)).toBe(true);
          for (const [key, hash] of contacts)
            expect(t.state.lookup([{ resource: 'user', kind: 'entity', key, hash }])[0]?.hash).toBe(hash);
        } finally {
          t.cleanup();
        }
      }),
      { numRuns: 60 },
    );
  });
});
