import { describe, expect, it } from 'vitest';
import { classifyRow, mappingChangeNote, type SyncCounts } from '../../src/sync/classify.js';
import type { SyncKey } from '../../src/sync/sync-key.js';

const contact: SyncKey = { resource: 'user', kind: 'entity', key: 'custom_id=C-1', hash: 'a'.repeat(64) };
const event: SyncKey = { resource: 'event', kind: 'event', key: 'e'.repeat(64), hash: 'e'.repeat(64) };
const same = { hash: 'a'.repeat(64), runId: '20261122T020000Z-0001', at: '2026-11-22T02:00:05.000Z' };
const other = { ...same, hash: 'b'.repeat(64) };
const seen = { hash: undefined, runId: '20261122T020000Z-0001', at: '2026-11-22T02:00:05.000Z' };
const later = { where: 'line 9' };

describe('classifyRow', () => {
  it.each([
    ['entity never seen', contact, undefined, undefined, 'incremental', 'new', true],
    ['entity, same request', contact, same, undefined, 'incremental', 'unchanged', false],
    ['entity, other request', contact, other, undefined, 'incremental', 'changed', true],
    ['entity with a later row of the same key', contact, other, later, 'incremental', 'superseded', false],
    ['event never seen', event, undefined, undefined, 'incremental', 'new', true],
    ['event accepted before', event, seen, undefined, 'incremental', 'already_sent', false],
    ['event after the first of its identity', event, undefined, later, 'incremental', 'superseded', false],
    ['full refresh, entity unchanged', contact, same, undefined, 'full-refresh', 'unchanged', true],
    ['full refresh, event accepted before: never twice', event, seen, undefined, 'full-refresh', 'already_sent', false],
    ['full refresh, superseded', contact, same, later, 'full-refresh', 'superseded', false],
  ] as const)('%s → %s', (_, row, stored, winner, mode, status, send) => {
    const c = classifyRow(row, stored, winner, mode);
    expect(c.status).toBe(status);
    expect(c.send).toBe(send);
  });

  it('says why a row is not sent', () => {
    expect(classifyRow(contact, same, undefined, 'incremental').message).toBe(
      'same request as accepted by run 20261122T020000Z-0001 at 2026-11-22T02:00:05.000Z',
    );
    expect(classifyRow(event, seen, undefined, 'incremental').message).toBe(
      'accepted by run 20261122T020000Z-0001 at 2026-11-22T02:00:05.000Z',
    );
    expect(classifyRow(contact, undefined, later, 'incremental').message).toBe(
      'superseded by line 9, which has the same custom_id=C-1: the later row of a key wins, and its line says how it went',
    );
    expect(classifyRow(event, undefined, { where: 'line 2' }, 'incremental').message).toBe(
      'same event as line 2, which is sent once for both: its line says how that went',
    );
  });
});

describe('events in doubt', () => {
  const doubt = { hash: undefined, runId: 'doubt:20261122T020000Z-ab12', at: '2026-11-22T02:01:00.000Z' };

  it.each(['incremental', 'full-refresh'] as const)(
    'an event an earlier run left unknown is reported unknown and not sent (%s)',
    (mode) => {
      const c = classifyRow(event, doubt, undefined, mode);
      expect(c).toMatchObject({ status: 'unknown', send: false });
      expect(c.message).toContain('in doubt since run 20261122T020000Z-ab12');
      expect(c.message).toContain('resume --resend-unknown');
      expect(c.message).toMatch(/engage-import state forget --resource event --key e{64}$/);
    },
  );
});

describe('mappingChangeNote', () => {
  const counts = (c: Partial<SyncCounts>): SyncCounts => ({
    unknown: 0,
    new: 0,
    changed: 0,
    unchanged: 0,
    already_sent: 0,
    superseded: 0,
    ...c,
  });

  it.each([
    ['most changed, mapping changed', 'entity', { changed: 90, unchanged: 10 }, 'old', 'new', true],
    ['most changed, same mapping', 'entity', { changed: 90, unchanged: 10 }, 'same', 'same', false],
    ['few changed, mapping changed', 'entity', { changed: 10, unchanged: 90 }, 'old', 'new', false],
    ['exactly half', 'entity', { changed: 50, unchanged: 50 }, 'old', 'new', false],
    ['no state yet', 'entity', { new: 100 }, undefined, 'new', false],
    ['only new entities', 'entity', { new: 100 }, 'old', 'new', false],
    ['events mostly new, mapping changed', 'event', { new: 80, already_sent: 20 }, 'old', 'new', true],
    [
      'some events new, mapping changed: they may be old ones',
      'event',
      { new: 20, already_sent: 80 },
      'old',
      'new',
      true,
    ],
    ['no event new, mapping changed', 'event', { already_sent: 100 }, 'old', 'new', false],
    ['events new, mapping the same', 'event', { new: 20, already_sent: 80 }, 'same', 'same', false],
  ] as const)('%s', (_, kind, c, stored, current, says) => {
    const note = mappingChangeNote('contacts.csv', kind, counts(c), stored, current);
    expect(note !== undefined).toBe(says);
  });

  it('names the file and the share', () => {
    expect(mappingChangeNote('contacts.csv', 'entity', counts({ changed: 1500, unchanged: 10 }), 'old', 'new')).toBe(
      'contacts.csv: most rows changed (1,500 of 1,510) and its mapping changed since the state was recorded: the requests differ because of the mapping, not the data',
    );
  });
});
