import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { exportState, importState } from '../../src/sync/state-transfer.js';
import { SyncState } from '../../src/sync/sync-state.js';
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
const NOW = () => new Date('2026-11-23T08:00:00.000Z');

function filled() {
  const t = setUp();
  t.state.apply(
    fakeFeed(
      'r1',
      [
        { resource: 'user', kind: 'entity', key: 'custom_id=C-1', hash: hex('1') },
        { resource: 'event', kind: 'event', key: hex('e'), hash: hex('e') },
      ],
      { fingerprints: { user: hex('f') } },
    ),
  );
  return t;
}

describe('state export and import', () => {
  it('an export of a state with a damaged page fails with the damage message and leaves no file, not a crash', async () => {
    const t = setUp();
    const rows = Array.from({ length: 3000 }, (_, i) => ({
      resource: 'user' as const,
      kind: 'entity' as const,
      key: `custom_id=L-${String(i).padStart(5, '0')}`,
      hash: createHash('sha256').update(String(i)).digest('hex'),
    }));
    t.state.apply(fakeFeed('r1', rows));
    t.state.close();
    // A leaf page of the keys' tree says it holds no cells: the scan stops part-way with SQLITE_CORRUPT.
    const bytes = readFileSync(t.file);
    const pageSize = bytes.readUInt16BE(16);
    const leaves: number[] = [];
    for (let page = 1; page < bytes.length / pageSize; page++) if (bytes[page * pageSize] === 0x0a) leaves.push(page);
    const leaf = leaves[Math.floor(leaves.length / 2)]! * pageSize;
    bytes[leaf + 3] = 0;
    bytes[leaf + 4] = 0;
    writeFileSync(t.file, bytes);
    const damaged = SyncState.open(t.file, '/jobs/nightly.yaml', { mode: 'read', cwd: t.dir, check: false })!;
    const file = join(t.dir, 'state.ndjson');
    try {
      await expect(exportState(damaged, file, NOW)).rejects.toThrow(/damaged/);
    } finally {
      damaged.close();
    }
    expect(readdirSync(t.dir).filter((f) => f.startsWith('state.ndjson'))).toEqual([]);
  });

  it("refuses a file whose lines were changed after the export (a flipped digit), by the end line's checksum", async () => {
    const a = filled();
    const file = join(a.dir, 'state.ndjson');
    await exportState(a.state, file, NOW);
    const text = readFileSync(file, 'utf8');
    const identity = hex('e');
    writeFileSync(file, text.replace(identity, `${identity.slice(0, -1)}f`));
    const b = setUp();
    await expect(importState(b.state, file, b.dir)).rejects.toThrow(
      'state.ndjson:6: the lines before the end line do not match its checksum (changed since the export?); the sync state was not changed',
    );
    expect(b.state.counts()).toEqual([]);
  });

  it('carries the account the rows were sent to: a fresh state takes it, a state of another account refuses the file', async () => {
    const a = filled();
    const accountA = { baseUrl: 'https://a.example.com/api/public/', keyFingerprint: 'fp-a' };
    a.state.checkTarget(accountA, true);
    const file = join(a.dir, 'state.ndjson');
    await exportState(a.state, file, NOW);
    expect(JSON.parse(readFileSync(file, 'utf8').split('\n')[0]!)).toMatchObject({ target: accountA });

    const fresh = setUp();
    await importState(fresh.state, file, fresh.dir);
    expect(fresh.state.target()).toEqual(accountA);
    // A run against account B is then refused, as with the state it was exported from.
    expect(() => fresh.state.checkTarget({ ...accountA, keyFingerprint: 'fp-b' }, true)).toThrow(
      'another API key (another account?)',
    );

    const other = setUp();
    other.state.apply(fakeFeed('b1', [{ resource: 'user', kind: 'entity', key: 'custom_id=KEEP', hash: hex('2') }]));
    other.state.checkTarget({ ...accountA, keyFingerprint: 'fp-b' }, true);
    await expect(importState(other.state, file, other.dir)).rejects.toThrow(
      'state.ndjson:1: its rows were sent with another API key (another account?) than this state: runs with it would skip rows that this account never got. Import it into the state directory of its own target; the sync state was not changed',
    );
    expect(other.state.counts()).toEqual([{ resource: 'user', kind: 'entity', count: 1 }]);
  });

  it("carries a resource's fingerprints of several mapping files across an export", async () => {
    const a = setUp();
    const kept = `store.yaml=${hex('b')},visits.yaml=${hex('a')}`;
    a.state.apply(
      fakeFeed('r1', [{ resource: 'event', kind: 'event', key: hex('e'), hash: hex('e') }], {
        fingerprints: { event: kept },
      }),
    );
    const file = join(a.dir, 'state.ndjson');
    await exportState(a.state, file, NOW);
    const b = setUp();
    await importState(b.state, file, b.dir);
    expect(b.state.mappingFingerprint('event')).toBe(kept);
  });

  it('writes NDJSON with a header and an end line, and reads it back into another state', async () => {
    const a = filled();
    const file = join(a.dir, 'state.ndjson');
    expect(await exportState(a.state, file, NOW)).toBe(4);
    const lines = readFileSync(file, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(lines).toEqual([
      {
        format: 'engage-import sync state',
        version: 1,
        job: '/jobs/nightly.yaml',
        exported_at: '2026-11-23T08:00:00.000Z',
      },
      {
        type: 'entity',
        resource: 'user',
        key: 'custom_id=C-1',
        hash: hex('1'),
        run: 'r1',
        at: '2026-11-23T02:00:00.000Z',
      },
      { type: 'event', resource: 'event', identity: hex('e'), run: 'r1', at: '2026-11-23T02:00:00.000Z' },
      { type: 'mapping', resource: 'user', fingerprint: hex('f'), run: 'r1', at: '2026-11-23T02:00:00.000Z' },
      { type: 'applied', run: 'r1', seq: 2, complete: true },
      { type: 'end', rows: 4, sha256: expect.stringMatching(/^[0-9a-f]{64}$/) },
    ]);

    const b = setUp();
    b.state.apply(fakeFeed('old', [{ resource: 'user', kind: 'entity', key: 'custom_id=GONE', hash: hex('0') }]));
    expect(await importState(b.state, file, b.dir)).toBe(4);
    expect(b.state.counts()).toEqual([
      { resource: 'user', kind: 'entity', count: 1 },
      { resource: 'event', kind: 'event', count: 1 },
    ]);
    expect(b.state.lookup([{ resource: 'user', kind: 'entity', key: 'custom_id=C-1', hash: hex('1') }])[0]?.hash).toBe(
      hex('1'),
    );
    expect(b.state.isComplete('r1')).toBe(true);
    expect(b.state.mappingFingerprint('user')).toBe(hex('f'));
    expect(b.state.lastRun()).toEqual({ runId: 'r1', at: '2026-11-23T02:00:00.000Z' });
  });

  const header =
    '{"format":"engage-import sync state","version":1,"job":"/jobs/nightly.yaml","exported_at":"2026-11-23T08:00:00.000Z"}';
  const entity = `{"type":"entity","resource":"user","key":"custom_id=C-9","hash":"${hex('9')}","run":"r9","at":"t"}`;

  it.each([
    [
      'a newer format',
      `${header.replace('"version":1', '"version":2')}\n{"type":"end","rows":0}\n`,
      'x.ndjson:1: written by a newer engage-import (format 2; this one reads format 1)',
    ],
    ['a file cut short', `${header}\n${entity}\n`, 'x.ndjson:2: the file ends before its end line (cut short?)'],
    [
      'a wrong count',
      `${header}\n${entity}\n{"type":"end","rows":2}\n`,
      'x.ndjson:3: the end line counts 2 rows, the file holds 1',
    ],
    [
      'a broken line',
      `${header}\n{"type":"entity",\n{"type":"end","rows":0}\n`,
      'x.ndjson:2: not a JSON line (the file is damaged)',
    ],
    [
      'a bad hash',
      `${header}\n${entity.replace(hex('9'), 'zz')}\n{"type":"end","rows":1}\n`,
      'x.ndjson:2: not a sync state line (hash:',
    ],
    [
      'a key listed twice',
      `${header}\n${entity}\n${entity}\n{"type":"end","rows":2}\n`,
      'x.ndjson:3: cannot be stored',
    ],
    ['another kind of file', '{"hello":1}\n', 'x.ndjson:1: not an engage-import sync state export'],
    ['an empty file', '', 'x.ndjson:1: the file is empty'],
  ])('refuses %s and leaves the state as it was', async (_, text, message) => {
    const t = filled();
    const file = join(t.dir, 'x.ndjson');
    writeFileSync(file, text);
    await expect(importState(t.state, file, t.dir)).rejects.toThrow(message);
    await expect(importState(t.state, file, t.dir)).rejects.toThrow('the sync state was not changed');
    expect(t.state.counts()).toEqual([
      { resource: 'user', kind: 'entity', count: 1 },
      { resource: 'event', kind: 'event', count: 1 },
    ]);
  });
});
