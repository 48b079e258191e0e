import { forgetCommand } from '../../src/sync/forget-command.js';
import { copyFileSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { classifyRow } from '../../src/sync/classify.js';
import { SyncState } from '../../src/sync/sync-state.js';
import type { ResolvedMapping } from '../../src/config/mapping-schema.js';
import { identityHash, legacyIdentityHash } from '../../src/sync/request-hash.js';
import { createSyncKeyer } from '../../src/sync/sync-key.js';
import { createRunClassifier } from '../../src/sync/sync-preview.js';
import type { SyncKey } from '../../src/sync/sync-key.js';
import type { SyncDelta } from '../../src/sync/ledger-feed.js';
import { fakeFeed, hex, tempState } from './_feed.js';

let cleanups: (() => void)[] = [];
afterEach(() => {
  for (const c of cleanups) c();
  cleanups = [];
});
const setUp = () => {
  const t = tempState();
  cleanups.push(t.cleanup);
  return t;
};

const contact = (id: string, hash: string): SyncKey => ({
  resource: 'user',
  kind: 'entity',
  key: `custom_id=${id}`,
  hash,
});
const event = (identity: string): SyncKey => ({ resource: 'event', kind: 'event', key: identity, hash: identity });

describe('SyncState.apply and lookup', () => {
  it('holds only what a run ledger recorded, and finds it in batches', () => {
    const { state } = setUp();
    const deltas: Omit<SyncDelta, 'seq' | 'at'>[] = Array.from({ length: 1_200 }, (_, i) => ({
      resource: 'user',
      kind: 'entity',
      key: `custom_id=C-${i}`,
      hash: hex((i % 10).toString()),
    }));
    deltas.push({ resource: 'event', kind: 'event', key: hex('e'), hash: hex('e') });
    expect(state.apply(fakeFeed('20261122T020000Z-0001', deltas))).toBe(1_201);

    const found = state.lookup([
      contact('C-3', hex('3')),
      contact('C-1199', hex('9')),
      contact('C-nope', hex('0')),
      event(hex('e')),
      event(hex('f')),
    ]);
    expect(found.map((f) => f && { hash: f.hash, runId: f.runId })).toEqual([
      { hash: hex('3'), runId: '20261122T020000Z-0001' },
      { hash: hex('9'), runId: '20261122T020000Z-0001' },
      undefined,
      { hash: undefined, runId: '20261122T020000Z-0001' },
      undefined,
    ]);
    // More keys than one statement takes: every one of them is answered, in order.
    const many = state.lookup(deltas.slice(0, 1_200).map((d) => contact(d.key.slice('custom_id='.length), d.hash)));
    expect(many.every((f, i) => f?.hash === deltas[i]!.hash)).toBe(true);
  });

  it('applies each outcome once, however often it is called, and resumes where it stopped', () => {
    const { state } = setUp();
    const feed = fakeFeed(
      'r1',
      [
        { resource: 'user', kind: 'entity', key: 'custom_id=C-1', hash: hex('1') },
        { resource: 'user', kind: 'entity', key: 'custom_id=C-2', hash: hex('2') },
      ],
      { finished: false },
    );
    expect(state.apply(feed)).toBe(2);
    expect(state.apply(feed)).toBe(0);
    expect(feed.reads.at(-1)).toEqual({ after: 2, limit: 5_000 });
    expect(state.isComplete('r1')).toBe(false);

    const finished = fakeFeed('r1', [
      { resource: 'user', kind: 'entity', key: 'custom_id=C-1', hash: hex('1') },
      { resource: 'user', kind: 'entity', key: 'custom_id=C-2', hash: hex('2') },
      { resource: 'user', kind: 'entity', key: 'custom_id=C-1', hash: hex('3') },
    ]);
    expect(state.apply(finished)).toBe(1);
    expect(state.isComplete('r1')).toBe(true);
    expect(state.lookup([contact('C-1', hex('3'))])[0]?.hash).toBe(hex('3'));
    // A complete run is only probed for one more delta (catch-up does not even open it).
    const reads = finished.reads.length;
    expect(state.apply(finished)).toBe(0);
    expect(finished.reads.slice(reads)).toEqual([{ after: 3, limit: 1 }]);

    // `resume --resend-unknown` reopened the finished run and recorded one more outcome: applied.
    const resent = fakeFeed('r1', [
      { resource: 'user', kind: 'entity', key: 'custom_id=C-1', hash: hex('1') },
      { resource: 'user', kind: 'entity', key: 'custom_id=C-2', hash: hex('2') },
      { resource: 'user', kind: 'entity', key: 'custom_id=C-1', hash: hex('3') },
      { resource: 'user', kind: 'entity', key: 'custom_id=C-2', hash: hex('4') },
    ]);
    expect(state.apply(resent)).toBe(1);
    expect(state.isComplete('r1')).toBe(true);
    expect(state.lookup([contact('C-2', hex('4'))])[0]?.hash).toBe(hex('4'));
  });

  it('a later run replaces an entity request and keeps the first run of an event', () => {
    const { state } = setUp();
    state.apply(
      fakeFeed('r1', [
        { resource: 'user', kind: 'entity', key: 'custom_id=C-1', hash: hex('1') },
        { resource: 'event', kind: 'event', key: hex('e'), hash: hex('e') },
      ]),
    );
    state.apply(
      fakeFeed('r2', [
        { resource: 'user', kind: 'entity', key: 'custom_id=C-1', hash: hex('2') },
        { resource: 'event', kind: 'event', key: hex('e'), hash: hex('e') },
      ]),
    );
    const [c, e] = state.lookup([contact('C-1', hex('2')), event(hex('e'))]);
    expect(c).toMatchObject({ hash: hex('2'), runId: 'r2' });
    expect(e).toMatchObject({ runId: 'r1' });
    expect(state.lastRun()).toEqual({ runId: 'r2', at: '2026-11-23T02:00:00.000Z' });
  });

  it('keeps an event in doubt until a run has it accepted, and never lets a doubt replace an accepted event', () => {
    const { state } = setUp();
    state.apply(fakeFeed('r1', [{ resource: 'event', kind: 'doubt', key: hex('d'), hash: hex('d') }]));
    expect(state.lookup([event(hex('d'))])[0]).toMatchObject({ runId: 'doubt:r1' });
    expect(classifyRow(event(hex('d')), state.lookup([event(hex('d'))])[0], undefined, 'incremental')).toMatchObject({
      status: 'unknown',
      send: false,
    });

    // resume --resend-unknown of r1 got it accepted: from then on it is already sent.
    state.apply(fakeFeed('r1-resend', [{ resource: 'event', kind: 'event', key: hex('d'), hash: hex('d') }]));
    expect(state.lookup([event(hex('d'))])[0]).toMatchObject({ runId: 'r1-resend' });
    state.apply(fakeFeed('r3', [{ resource: 'event', kind: 'doubt', key: hex('d'), hash: hex('d') }]));
    expect(classifyRow(event(hex('d')), state.lookup([event(hex('d'))])[0], undefined, 'incremental')).toMatchObject({
      status: 'already_sent',
      send: false,
    });
  });

  it('rolls a batch back whole when the ledger hands outcomes out of order', () => {
    const { state } = setUp();
    const bad = {
      ...fakeFeed('r1', []),
      deltasAfter: () => [
        { seq: 2, resource: 'user' as const, kind: 'entity' as const, key: 'custom_id=C-1', hash: hex('1'), at: 't' },
        { seq: 1, resource: 'user' as const, kind: 'entity' as const, key: 'custom_id=C-2', hash: hex('1'), at: 't' },
      ],
    };
    expect(() => state.apply(bad)).toThrow('gave its outcomes out of order (1 after 2)');
    expect(state.counts()).toEqual([]);
  });

  it('remembers the mapping fingerprint of each resource a run sent', () => {
    const { state } = setUp();
    state.apply(
      fakeFeed('r1', [{ resource: 'user', kind: 'entity', key: 'custom_id=C-1', hash: hex('1') }], {
        fingerprints: { user: hex('f'), event: hex('0') },
      }),
    );
    expect(state.mappingFingerprint('user')).toBe(hex('f'));
    // Only resources the run actually had accepted rows of.
    expect(state.mappingFingerprint('event')).toBeUndefined();
  });

  it('counts per resource and forgets a resource or one key', () => {
    const { state } = setUp();
    state.apply(
      fakeFeed('r1', [
        { resource: 'user', kind: 'entity', key: 'custom_id=C-1', hash: hex('1') },
        { resource: 'user', kind: 'entity', key: 'custom_id=C-2', hash: hex('1') },
        { resource: 'deal', kind: 'entity', key: 'id=42', hash: hex('1') },
        { resource: 'event', kind: 'event', key: hex('e'), hash: hex('e') },
      ]),
    );
    expect(state.counts()).toEqual([
      { resource: 'deal', kind: 'entity', count: 1 },
      { resource: 'user', kind: 'entity', count: 2 },
      { resource: 'event', kind: 'event', count: 1 },
    ]);
    expect(state.forget('user', 'C-1')).toBe(1);
    expect(state.forget('deal', '42')).toBe(1);
    expect(state.forget('event', hex('e'))).toBe(1);
    expect(state.forget('user')).toBe(1);
    expect(state.counts()).toEqual([]);
  });

  it('asks which key when a bare --key names both a custom_id and an id, and forgets a deal create by its custom_id', () => {
    const { state } = setUp();
    state.apply(
      fakeFeed('r1', [
        { resource: 'deal', kind: 'entity', key: 'id=42', hash: hex('1') },
        { resource: 'deal', kind: 'entity', key: 'custom_id=42', hash: hex('2') },
        { resource: 'deal', kind: 'event', key: identityHash('deal', ['custom_id=D-7']), hash: hex('3') },
      ]),
    );
    expect(() => state.forget('deal', '42')).toThrow(
      'the sync state holds both custom_id=42 and id=42 for deal: say which with --key custom_id=42 or --key id=42',
    );
    expect(state.counts()).toEqual([
      { resource: 'deal', kind: 'entity', count: 2 },
      { resource: 'deal', kind: 'event', count: 1 },
    ]);
    expect(state.forget('deal', 'id=42')).toBe(1);
    expect(state.forget('deal', '42')).toBe(1);
    expect(state.forget('deal', 'D-7')).toBe(1);
    expect(state.counts()).toEqual([]);
  });

  it('forgets a custom_id that itself reads `id=…` or `custom_id=…`, given as it is', () => {
    const { state } = setUp();
    state.apply(
      fakeFeed('r1', [
        { resource: 'user', kind: 'entity', key: 'custom_id=id=5', hash: hex('1') },
        { resource: 'user', kind: 'entity', key: 'custom_id=custom_id=9', hash: hex('2') },
        { resource: 'deal', kind: 'event', key: identityHash('deal', ['custom_id=id=7']), hash: hex('3') },
      ]),
    );
    expect(state.forget('user', 'id=5')).toBe(1);
    expect(state.forget('user', 'custom_id=9')).toBe(1);
    expect(state.forget('deal', 'id=7')).toBe(1);
    expect(state.counts()).toEqual([]);
  });
});

describe('SyncState.open refuses what it cannot trust', () => {
  it('reads a missing state as none (first run) and creates one only to write', () => {
    const { dir } = setUp();
    expect(SyncState.open(`${dir}/sync/other.sqlite`, '/jobs/x.yaml', { mode: 'read' })).toBeUndefined();
  });

  it('refuses a state written by a newer format, saying so', () => {
    const { state, file } = setUp();
    state.close();
    const db = new Database(file);
    db.pragma('user_version = 2');
    db.close();
    expect(() => SyncState.open(file, '/jobs/nightly.yaml', { cwd: '/' })).toThrow(
      /the sync state .*nightly\.sqlite was written by a newer engage-import \(format 2; this one reads format 1\); nothing was sent/,
    );
  });

  it.each([
    ['an empty file', (file: string) => writeFileSync(file, ''), 'the file is empty'],
    [
      'garbage',
      (file: string) =>
        writeFileSync(file, 'not a database at all, but long enough to look like a header of some kind'.repeat(100)),
      'is damaged',
    ],
    [
      'another SQLite file',
      (file: string) => {
        rmSync(file);
        const db = new Database(file);
        db.exec('CREATE TABLE t (x)');
        db.close();
      },
      'not an engage-import sync state',
    ],
  ])('refuses %s as damaged', (_, spoil, message) => {
    const { state, file } = setUp();
    state.close();
    for (const f of [`${file}-wal`, `${file}-shm`]) writeFileSync(f, '');
    spoil(file);
    expect(() => SyncState.open(file, '/jobs/nightly.yaml')).toThrow(message);
    expect(() => SyncState.open(file, '/jobs/nightly.yaml')).toThrow('nothing was sent');
  });

  it('refuses a state with a flipped byte in its pages', () => {
    const { state, file, dir } = setUp();
    state.apply(
      fakeFeed(
        'r1',
        Array.from({ length: 3_000 }, (_, i) => ({
          resource: 'user' as const,
          kind: 'entity' as const,
          key: `custom_id=C-${i}`,
          hash: hex('1'),
        })),
      ),
    );
    state.close();
    const spoilt = `${dir}/spoilt.sqlite`;
    copyFileSync(file, spoilt);
    const bytes = readFileSync(spoilt);
    // A page in the middle of the file belongs to the entities' B-tree: break its page header.
    const page = Math.floor(bytes.length / 4096 / 2);
    bytes.fill(0xff, 4096 * page, 4096 * page + 12);
    writeFileSync(spoilt, bytes);
    expect(() => SyncState.open(spoilt, '/jobs/nightly.yaml')).toThrow(/is damaged/);
  });
});

describe('a state written before identities took what the row records', () => {
  it('still holds its events and deal creates: a run after the upgrade sends none of them again', () => {
    const { state } = setUp();
    // As the earlier version recorded them: identity cells hashed alone, a deal create as an entity.
    state.apply(
      fakeFeed('old', [
        { resource: 'event', kind: 'event', key: legacyIdentityHash(['O-1 ']), hash: hex('1') },
        { resource: 'deal', kind: 'entity', key: 'custom_id=D-1', hash: hex('2') },
      ]),
    );
    const mapping = (m: Partial<ResolvedMapping>) =>
      ({
        mappingFile: '/m.yaml',
        source: { path: '/d.csv' },
        fields: [],
        operation: undefined,
        ...m,
      }) as ResolvedMapping;
    const event = createSyncKeyer(mapping({ resource: 'event', identity: ['order'] }), ['order'])({
      payload: { name: 'Purchase' },
      call: { method: 'POST', path: 'users-by-id/C-1/events/', body: { name: 'Purchase' } },
      fields: ['O-1 '],
    });
    const deal = createSyncKeyer(mapping({ resource: 'deal', operation: 'create' }), ['id'])({
      payload: { custom_id: 'D-1', amount: 150 },
      call: { method: 'POST', path: 'deals/', body: { custom_id: 'D-1', amount: 150 } },
      fields: ['D-1'],
    });
    const fresh: SyncKey = { resource: event.resource, kind: event.kind, key: hex('9'), hash: event.hash };
    const [e, d, f] = state.lookupWithLegacy([event, deal, fresh]);
    expect(classifyRow(event, e, undefined, 'incremental').status).toBe('already_sent');
    expect(classifyRow(deal, d, undefined, 'incremental')).toMatchObject({ status: 'already_sent', send: false });
    expect(classifyRow(fresh, f, undefined, 'incremental').status).toBe('new');
  });
});

describe('a row found only under an earlier version key, in a job with several mappings of its resource', () => {
  it('is unknown (not sent, not called sent): the old key did not say which mapping sent it', () => {
    const { state } = setUp();
    state.apply(
      fakeFeed('old', [{ resource: 'event', kind: 'event', key: legacyIdentityHash(['O-1']), hash: hex('1') }]),
    );
    const mapping = (file: string, name: string) =>
      ({
        mappingFile: file,
        resource: 'event',
        operation: undefined,
        identity: ['order'],
        source: { path: '/d.csv' },
        fields: [{ target: 'name', path: ['name'], constant: name }],
      }) as unknown as ResolvedMapping;
    const row = (name: string) => ({
      payload: { name },
      call: { method: 'POST' as const, path: 'users-by-id/C-1/events/', body: { name } },
      fields: ['O-1'],
      line: 2,
    });
    const classifier = createRunClassifier({ state, mode: 'incremental' });
    const purchases = classifier.forSource(0, mapping('/purchases.yaml', 'Purchase'), ['order'], 'purchases.csv');
    const refunds = classifier.forSource(1, mapping('/refunds.yaml', 'Refund'), ['order'], 'refunds.csv');
    const [refund] = refunds.classify([row('Refund')]);
    expect(refund).toMatchObject({ status: 'unknown', send: false });
    expect(refund!.message).toContain(
      `without saying which of the job's event mappings sent it: check the account; to send this row, ${forgetCommand(state)} --resource event --key ${legacyIdentityHash(['O-1'])}`,
    );
    expect(purchases.classify([row('Purchase')])[0]).toMatchObject({ status: 'unknown', send: false });
    classifier.close();

    // With one mapping of the resource, the old key can only be this mapping's row: already sent.
    const alone = createRunClassifier({ state, mode: 'incremental' });
    const only = alone.forSource(0, mapping('/purchases.yaml', 'Purchase'), ['order'], 'purchases.csv');
    expect(only.classify([row('Purchase')])[0]).toMatchObject({ status: 'already_sent', send: false });
    alone.close();
  });
});
