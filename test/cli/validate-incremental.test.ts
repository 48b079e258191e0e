import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'csv-parse/sync';
import { afterEach, describe, expect, it } from 'vitest';
import { loadJob } from '../../src/config/load-job.js';
import { mappingFingerprint } from '../../src/sync/mapping-fingerprint.js';
import { requestHash } from '../../src/sync/request-hash.js';
import { syncStateFile } from '../../src/sync/state-file.js';
import { SyncState } from '../../src/sync/sync-state.js';
import type { SyncDelta } from '../../src/sync/ledger-feed.js';
import { runCli } from '../helpers/run-cli.js';
import { tmpTree } from '../helpers/tmp.js';
import { fakeFeed } from '../sync/_feed.js';

const CONTACTS =
  'resource: user\nsource: { file: contacts.csv }\nkey: id\nfields:\n  custom_id: id\n  first_name: name\n';
const EVENTS =
  'resource: event\nsource: { file: events.csv }\nkey: event_id\nfields:\n  user_custom_id: customer\n  name: event\n  timestamp: { column: at, type: unix }\n';
const DAY1 = {
  contacts: 'id,name\nC-1,Ann\nC-2,Bob\nC-3,Cy\n',
  events: 'event_id,customer,event,at\nE-1,C-1,Signed Up,1767225600\nE-2,C-2,Signed Up,1767225601\n',
};
// Day 2: C-1 unchanged, C-2 changed twice (the later row wins), C-3 failed on day 1 (new),
// C-4 new, one invalid row; the cumulative events file holds day 1's events, a new one twice.
const DAY2 = {
  contacts: 'id,name\nC-1,Ann\nC-2,Bobby\nC-3,Cy\nC-4,Dee\nC-2,Robert\n,Nobody\n',
  events:
    'event_id,customer,event,at\nE-1,C-1,Signed Up,1767225600\nE-2,C-2,Signed Up,1767225601\nE-3,C-4,Signed Up,1767225602\nE-3,C-4,Signed Up,1767225602\n',
};

let dirs: string[] = [];
afterEach(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
  dirs = [];
});

/**
 * Day 1 as the state records it: the requests `validate --payloads` shows for day 1's rows, of
 * which the API accepted all but contact C-3, applied as a run ledger would hand them over.
 */
async function afterDay1(): Promise<string> {
  const dir = tmpTree({
    'job.yaml': 'mappings: [contacts.yaml, events.yaml]\n',
    'contacts.yaml': CONTACTS,
    'events.yaml': EVENTS,
    'contacts.csv': DAY1.contacts,
    'events.csv': DAY1.events,
  });
  dirs.push(dir);
  expect((await runCli(['validate', 'job.yaml', '--payloads', 'day1.ndjson', '--quiet'], { cwd: dir })).code).toBe(0);
  const deltas: Omit<SyncDelta, 'seq' | 'at'>[] = [];
  for (const text of readFileSync(join(dir, 'day1.ndjson'), 'utf8').trim().split('\n')) {
    const p = JSON.parse(text) as { method: string; path: string; body: Record<string, unknown> };
    const hash = requestHash({ method: p.method, path: p.path.slice(1), body: p.body });
    if (p.body['custom_id'] === 'C-3') continue;
    deltas.push(
      p.path.includes('events')
        ? { resource: 'event', kind: 'event', key: hash, hash }
        : { resource: 'user', kind: 'entity', key: `custom_id=${String(p.body['custom_id'])}`, hash },
    );
  }
  const job = await loadJob(join(dir, 'job.yaml'));
  const fingerprints = Object.fromEntries(
    job.mappings.map((m) => [m.resource, mappingFingerprint(m, { dealUpdateMethod: 'PATCH' })]),
  );
  const state = SyncState.open(syncStateFile(join(dir, '.engage-import'), job.file), job.file, { mode: 'write' })!;
  state.apply(fakeFeed('20261122T020000Z-0001', deltas, { fingerprints, at: '2026-11-22T02:00:09.000Z' }));
  state.close();
  writeFileSync(join(dir, 'contacts.csv'), DAY2.contacts);
  writeFileSync(join(dir, 'events.csv'), DAY2.events);
  return dir;
}

const report = (dir: string) =>
  (parse(readFileSync(join(dir, 'out/report.csv')), { columns: true }) as Record<string, string>[]).map(
    (r) => `${r.file}:${r.line} ${r.key} ${r.status}${r.message ? ` (${r.message})` : ''}`,
  );

describe('validate --incremental', () => {
  it('previews day 2: each row new, changed, unchanged, already_sent, superseded or invalid, and the requests the run needs', async () => {
    const dir = await afterDay1();
    const r = await runCli(['validate', 'job.yaml', '--incremental', '--rate', '2'], { cwd: dir });
    expect(r.code).toBe(1); // one invalid row
    expect(report(dir)).toEqual([
      'contacts.csv:2 C-1 unchanged (same request as accepted by run 20261122T020000Z-0001 at 2026-11-22T02:00:09.000Z)',
      'contacts.csv:3 C-2 superseded (superseded by line 6, which has the same custom_id=C-2: the later row of a key wins, and its line says how it went)',
      'contacts.csv:4 C-3 new',
      'contacts.csv:5 C-4 new',
      'contacts.csv:6 C-2 changed',
      'contacts.csv:7  invalid (custom_id: is required)',
      'events.csv:2 E-1 already_sent (accepted by run 20261122T020000Z-0001 at 2026-11-22T02:00:09.000Z)',
      'events.csv:3 E-2 already_sent (accepted by run 20261122T020000Z-0001 at 2026-11-22T02:00:09.000Z)',
      'events.csv:4 E-3 new',
      'events.csv:5 E-3 superseded (same event as line 4, which is sent once for both: its line says how that went)',
    ]);
    expect(r.stderr).toContain(
      'Dry run (nothing was sent): 10 rows in 2 files: invalid 1, new 3, changed 1, unchanged 1, already_sent 2, superseded 2',
    );
    expect(r.stderr).toMatch(/contacts\.csv\s+user\s+invalid 1, new 2, changed 1, unchanged 1, superseded 1\n/);
    expect(r.stderr).toMatch(/events\.csv\s+event\s+new 1, already_sent 2, superseded 1\n/);
    expect(r.stderr).toContain('Live import: 4 requests ≈ 2 s at 2 req/s');
    expect(r.stderr).not.toContain('Note:');
  });

  it('without a state yet (the first run), every valid row is new', async () => {
    const dir = await afterDay1();
    await runCli(['validate', 'job.yaml', '--incremental', '--state-dir', 'fresh', '--quiet'], { cwd: dir });
    expect(report(dir).filter((l) => l.endsWith(' new'))).toHaveLength(7);
  });

  it('takes `sync: incremental` from the job file, and writes payloads only for rows it would send', async () => {
    const dir = await afterDay1();
    writeFileSync(join(dir, 'job.yaml'), 'mappings: [contacts.yaml, events.yaml]\nsync: incremental\n');
    const r = await runCli(['validate', 'job.yaml', '--payloads', 'day2.ndjson', '--quiet'], { cwd: dir });
    expect(r.code).toBe(1);
    expect(
      readFileSync(join(dir, 'day2.ndjson'), 'utf8')
        .trim()
        .split('\n')
        .map((l) => (JSON.parse(l) as { line: number }).line),
    ).toEqual([4, 5, 6, 4]);
  });

  it('says when most rows changed because the mapping did', async () => {
    const dir = await afterDay1();
    writeFileSync(join(dir, 'contacts.yaml'), `${CONTACTS}  tags: { value: [nightly] }\n`);
    const r = await runCli(['validate', 'job.yaml', '--incremental'], { cwd: dir });
    expect(r.stderr).toContain(
      'Note: contacts.csv: most rows changed (2 of 2) and its mapping changed since the state was recorded: the requests differ because of the mapping, not the data',
    );
  });

  it('never supersedes a row by a row of another file: two mappings may send different fields of one contact', async () => {
    const dir = await afterDay1();
    writeFileSync(join(dir, 'job.yaml'), 'mappings: [contacts.yaml, phones.yaml]\n');
    writeFileSync(
      join(dir, 'phones.yaml'),
      'resource: user\nsource: { file: phones.csv }\nkey: id\nfields: { custom_id: id, phone_number: phone }\n',
    );
    writeFileSync(join(dir, 'phones.csv'), 'id,phone\nC-4,+33612345678\n');
    await runCli(['validate', 'job.yaml', '--incremental', '--quiet'], { cwd: dir });
    expect(report(dir)).toContain('contacts.csv:5 C-4 new');
    // Sent too, and compared (as the live run compares it) with what contacts.csv sends before it.
    expect(report(dir)).toContain('phones.csv:2 C-4 changed');
  });

  it('reports each row of an event the state holds already_sent, a repeated one too (none is sent)', async () => {
    const dir = await afterDay1();
    writeFileSync(join(dir, 'events.csv'), `${DAY2.events}E-1,C-1,Signed Up,1767225600\n`);
    await runCli(['validate', 'job.yaml', '--incremental', '--quiet'], { cwd: dir });
    expect(
      report(dir)
        .filter((l) => l.startsWith('events.csv:'))
        .map((l) => l.split(' (')[0]),
    ).toEqual([
      'events.csv:2 E-1 already_sent',
      'events.csv:3 E-2 already_sent',
      'events.csv:4 E-3 new',
      'events.csv:5 E-3 superseded',
      'events.csv:6 E-1 already_sent',
    ]);
  });

  it('foresees the skips of children whose parent is invalid here, as the live run skips them, and counts no request for them', async () => {
    const dir = tmpTree({
      'job.yaml': 'mappings: [contacts.yaml, events.yaml]\n',
      'contacts.yaml':
        'resource: user\nsource: { file: contacts.csv }\nkey: id\nfields:\n  custom_id: id\n  first_name: name\n',
      'events.yaml': EVENTS,
      // C-2 is invalid; C-3 is invalid, then valid again further down (the later row clears it).
      'contacts.csv': `id,name\nC-1,Ann\nC-2,${'B'.repeat(300)}\nC-3,${'C'.repeat(300)}\nC-3,Cy\n`,
      'events.csv':
        'event_id,customer,event,at\nE-1,C-1,Signed Up,1767225600\nE-2,C-2,Signed Up,1767225601\nE-3,C-3,Signed Up,1767225602\n',
    });
    dirs.push(dir);
    const skip = "events.csv:3 E-2 skipped (depends on user custom_id 'C-2', which was invalid at contacts.csv line 3)";
    for (const incremental of [[], ['--incremental']]) {
      const r = await runCli(['validate', 'job.yaml', '--payloads', 'p.ndjson', ...incremental], { cwd: dir });
      expect(r.code).toBe(1);
      const events = report(dir).filter((l) => l.startsWith('events.csv:'));
      const sent = incremental.length > 0 ? 'new' : 'valid';
      expect(events).toEqual([`events.csv:2 E-1 ${sent}`, skip, `events.csv:4 E-3 ${sent}`]);
      // Requests: two contacts and two events; the skipped event is not among the payloads.
      const payloads = readFileSync(join(dir, 'p.ndjson'), 'utf8').trim().split('\n');
      expect(payloads).toHaveLength(4);
      expect(payloads.some((p) => p.includes('C-2'))).toBe(false);
      expect(r.stderr).toMatch(/events\.csv +event +(valid 2, skipped 1|skipped 1, new 2)\n/);
      expect(r.stderr).toContain('Live import: 4 requests');
    }
    // The rejects file takes it too, with its reason, as the live run's does.
    await runCli(['validate', 'job.yaml', '--rejects', 'fix.csv', '--quiet'], { cwd: dir });
    expect(readFileSync(join(dir, 'fix.events.csv'), 'utf8')).toContain(
      `E-2,C-2,Signed Up,1767225601,"depends on user custom_id 'C-2', which was invalid at contacts.csv line 3"`,
    );
  });

  it('a later row of a key whose parent is invalid does not supersede the earlier one: the live run skips it and sends the earlier', async () => {
    const dir = tmpTree({
      'job.yaml': 'mappings: [contacts.yaml, deals.yaml]\n',
      'contacts.yaml': CONTACTS,
      'deals.yaml':
        'resource: deal\noperation: update_or_create\nsource: { file: deals.csv }\nkey: ref\nfields:\n  custom_id: ref\n  name: name\n  user_custom_id: customer\n',
      'contacts.csv': `id,name\nC-1,Ann\nC-2,${'B'.repeat(300)}\n`,
      'deals.csv': 'ref,name,customer\nD-1,First,C-1\nD-1,Second,C-2\n',
    });
    dirs.push(dir);
    const r = await runCli(['validate', 'job.yaml', '--incremental'], { cwd: dir });
    expect(report(dir).filter((l) => l.startsWith('deals.csv:'))).toEqual([
      'deals.csv:2 D-1 new',
      "deals.csv:3 D-1 skipped (depends on user custom_id 'C-2', which was invalid at contacts.csv line 3)",
    ]);
    expect(r.stderr).toContain('Live import: 2 requests');
  });

  it('refuses a damaged state before reading a row', async () => {
    const dir = await afterDay1();
    const file = syncStateFile(join(dir, '.engage-import'), join(dir, 'job.yaml'));
    writeFileSync(file, 'x'.repeat(8192));
    const r = await runCli(['validate', 'job.yaml', '--incremental'], { cwd: dir });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('is damaged');
  });
});
