import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
/**
 * The bulk path end to end through the command line against the sandbox: a job of products and
 * contacts by bulk, then events per row; and the invariant: on the same generated files and the
 * same sandbox fixtures, `--bulk never` and `--bulk always` give every input line the same status.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { Sandbox } from '../../src/sandbox/index.js';
import { importOnNewSandbox, requestPaths, type ReportLine } from '../helpers/import-on-sandbox.js';
import { tmpTree } from '../helpers/tmp.js';

const sandboxes: Sandbox[] = [];
afterEach(async () => {
  for (const s of sandboxes.splice(0)) await s.close();
});

type Line = ReportLine;

/** The account knows the custom attribute `tier` only: a contact that sets `shoe_size` is refused by the service alone. */
const FIXTURES = { userAttributes: ['tier'] };
const REFUSED = 'shoe_size: Custom attribute "shoe_size" does not exist in the account.';

/**
 * `products` products; `contacts` contacts, every 4th from the 2nd setting shoe_size (refused by
 * the service) until `refused` of them, every 50th without a custom_id (invalid here); one event
 * per contact (an event of a refused contact is skipped).
 */
function writeJob(contacts: number, refused: number, products = 30): string {
  const productLines = ['sku,title,price'];
  for (let i = 0; i < products; i++) productLines.push(`SKU-${i},Product ${i},${(i % 50) + 0.5}`);
  const contactLines = ['customer_id,email,tier,shoe_size'];
  const eventLines = ['event_id,customer_id,event,occurred_at'];
  let bad = 0;
  for (let i = 0; i < contacts; i++) {
    const id = i % 50 === 49 ? '' : `C-${i}`;
    const shoe = id !== '' && i % 4 === 1 && bad < refused ? String(36 + (i % 10)) : '';
    if (shoe !== '') bad++;
    contactLines.push(`${id},c${i}@example.com,gold,${shoe}`);
    eventLines.push(`EV-${i},C-${i},signup,2026-01-05T09:12:44Z`);
  }
  return tmpTree({
    'products.csv': `${productLines.join('\n')}\n`,
    'contacts.csv': `${contactLines.join('\n')}\n`,
    'events.csv': `${eventLines.join('\n')}\n`,
    'products.yaml':
      'resource: product\nsource: { file: products.csv }\nkey: sku\nfields:\n  custom_id: { column: sku, required: true }\n  name: title\n  price: { column: price, type: number }\n',
    'contacts.yaml':
      'resource: user\nsource: { file: contacts.csv }\nkey: customer_id\nfields:\n  custom_id: { column: customer_id, required: true }\n  email: email\n  tier: tier\n  shoe_size: shoe_size\n',
    'events.yaml':
      'resource: event\nsource: { file: events.csv }\nkey: event_id\nfields:\n  user_custom_id: { column: customer_id, required: true }\n  name: event\n  timestamp: { column: occurred_at, type: unix }\n',
    'job.yaml': 'mappings: [events.yaml, contacts.yaml, products.yaml]\n',
  });
}

const run = (dir: string, extra: string[], report = 'report.csv') =>
  importOnNewSandbox(dir, extra, { opened: sandboxes, report, sandbox: { fixtures: FIXTURES } });

describe('bulk imports end to end', () => {
  it('products and contacts by bulk, then events per row: more than 50 service-side failures in one chunk each on its own line with its message', async () => {
    const dir = writeJob(400, 70);
    const r = await run(dir, ['--bulk', 'always']);
    const contacts = r.report.filter((l) => l.resource === 'user');
    const failed = contacts.filter((l) => l.status === 'failed');
    expect(failed).toHaveLength(70);
    for (const l of failed) {
      expect(l.message).toMatch(/^bulk import [0-9a-f-]{36}: /);
      expect(l.message).toContain(REFUSED);
      expect(l.http_status).toBe('');
    }
    expect(contacts.filter((l) => l.status === 'invalid')).toHaveLength(8);
    expect(contacts.filter((l) => l.status === 'ok')).toHaveLength(400 - 70 - 8);
    expect(contacts.find((l) => l.status === 'ok')?.message).toMatch(/^imported by bulk import [0-9a-f-]{36}$/);
    // The failed contacts' events are skipped; the other events went per row (those of contacts
    // without a custom_id, invalid here, name a contact that does not exist: 404).
    const events = r.report.filter((l) => l.resource === 'event');
    expect(events.filter((l) => l.status === 'skipped')).toHaveLength(70);
    expect(events.filter((l) => l.status === 'ok')).toHaveLength(322);
    expect(events.filter((l) => l.status === 'failed' && l.http_status === '404')).toHaveLength(8);
    // Order: every import finished (its last status poll answered) before the first event left.
    const p = requestPaths(r.sandbox);
    expect(p.findIndex((x) => x.startsWith('POST') && x.endsWith('events/'))).toBeGreaterThan(0);
    expect(
      p.findLastIndex((x) => x.startsWith('POST users/import/') || x.startsWith('GET import/status/')),
    ).toBeLessThan(p.findIndex((x) => x.startsWith('POST') && x.endsWith('events/')));
    expect(p.filter((x) => x.startsWith('POST products/import/'))).toHaveLength(1);
    // 70 failures, 50 listed: the unknown rows went again in smaller chunks, far fewer than one request per row.
    const uploads = p.filter((x) => x.startsWith('POST users/import/')).length;
    expect(uploads).toBeGreaterThan(1);
    expect(uploads).toBeLessThan(20);
    expect(p.some((x) => x.startsWith('POST users/update_or_create/'))).toBe(false);
    expect(r.stderr).toMatch(
      /contacts\.csv\s+user\s+bulk: 392 of 400 rows in \d+ imports, invalid 8, ok 322, failed 70, \d+ requests, /,
    );
    expect(r.stderr).toContain(`70 × [failed] bulk import …: ${REFUSED}`);
    expect(r.sandbox.state.users()).toHaveLength(322);
    // The chunk files and the re-uploads cut from them held the rows' data: none is left behind.
    const runs = join(dir, 'state-report.csv', 'runs');
    const left = readdirSync(runs).flatMap((run) =>
      existsSync(join(runs, run, 'bulk')) ? readdirSync(join(runs, run, 'bulk')) : [],
    );
    expect(left).toEqual([]);
  }, 60_000);

  it('the invariant: per row and by bulk, every input line gets the same status (rows only the service refuses included)', async () => {
    const dir = writeJob(300, 40, 12);
    const perRow = await run(dir, ['--bulk', 'never'], 'per-row.csv');
    const bulk = await run(dir, ['--bulk', 'always', '--bulk-chunk-rows', '64']);
    const statuses = (lines: Line[]) => lines.map((l) => `${l.file}:${l.line} ${l.status}`);
    expect(statuses(bulk.report)).toEqual(statuses(perRow.report));
    expect(new Set(bulk.report.map((l) => l.status))).toEqual(new Set(['ok', 'failed', 'skipped', 'invalid']));
    const records = (s: Sandbox) => s.state.users().map(({ created_at: _c, updated_at: _u, id: _i, ...u }) => u);
    expect(records(bulk.sandbox)).toEqual(records(perRow.sandbox));
    expect(requestPaths(bulk.sandbox).filter((x) => x.startsWith('POST users/import/')).length).toBeGreaterThanOrEqual(
      5,
    );
  }, 60_000);

  it('the invariant holds for a contact field mapped as a boolean (per row "Not a valid string."; a bulk cell would read "true"): invalid on both paths', async () => {
    const dir = tmpTree({
      'contacts.csv': 'customer_id,phone,tags\nC1,true,\nC2,,yes;no\nC3,,\n',
      'contacts.yaml':
        "resource: user\nsource: { file: contacts.csv }\nkey: customer_id\nfields:\n  custom_id: { column: customer_id, required: true }\n  phone_number: { column: phone, type: boolean }\n  tags: { column: tags, type: list, separator: ';', items: boolean }\n",
      'job.yaml': 'mappings: [contacts.yaml]\n',
    });
    for (const bulk of ['never', 'always']) {
      const r = await run(dir, ['--bulk', bulk], `${bulk}.csv`);
      expect(r.report.map((l) => [l.line, l.status, l.message])).toEqual([
        ['2', 'invalid', 'phone_number: expected text, got true'],
        ['3', 'invalid', 'tags: item 1: expected text, got true'],
        ['4', 'ok', expect.any(String)],
      ]);
      expect(r.sandbox.state.users().map((u) => [u.custom_id, u.phone_number, u.tags])).toEqual([['C3', null, []]]);
    }
  }, 60_000);

  it('a chunk fills with the rows to send however many lines settled at once sit between them: one import', async () => {
    // 2,000 contacts, 1 in 25 valid (80), the others without a custom_id (invalid, settled at
    // once): far more settled lines than the window holds waiting rows (2 × 100 + 256).
    const lines = ['customer_id,email,tier,shoe_size'];
    for (let i = 0; i < 2000; i++) lines.push(`${i % 25 === 3 ? `C-${i}` : ''},c${i}@example.com,gold,`);
    const dir = tmpTree({
      'contacts.csv': `${lines.join('\n')}\n`,
      'contacts.yaml':
        'resource: user\nsource: { file: contacts.csv }\nkey: customer_id\nfields:\n  custom_id: { column: customer_id, required: true }\n  email: email\n  tier: tier\n  shoe_size: shoe_size\n',
      'job.yaml': 'mappings: [contacts.yaml]\n',
    });
    const r = await run(dir, ['--bulk', 'always', '--bulk-chunk-rows', '100']);
    expect(requestPaths(r.sandbox).filter((x) => x.startsWith('POST users/import/'))).toHaveLength(1);
    expect(r.report.map((l) => Number(l.line))).toEqual(Array.from({ length: 2000 }, (_, i) => i + 2));
    r.report.forEach((l, i) => {
      expect(l.status).toBe(i % 25 === 3 ? 'ok' : 'invalid');
      if (l.status === 'ok') expect(l.message).toMatch(/^imported by bulk import [0-9a-f-]{36}$/);
    });
    expect(r.sandbox.state.users()).toHaveLength(80);
    expect(r.stderr).toMatch(
      /contacts\.csv\s+user\s+bulk: 80 of 2,000 rows in 1 import, invalid 1,920, ok 80, 2 requests, /,
    );
  }, 60_000);

  it('--bulk auto: stages under --bulk-min-rows go per row', async () => {
    const dir = writeJob(40, 5, 5);
    const r = await run(dir, ['--bulk-min-rows', '30']);
    const p = requestPaths(r.sandbox);
    expect(p.some((x) => x.startsWith('POST users/import/'))).toBe(true);
    expect(p.some((x) => x.startsWith('POST products/import/'))).toBe(false);
    expect(p.filter((x) => x.startsWith('POST products/'))).toHaveLength(5);
  }, 60_000);
});

describe('bulk imports: one key in a chunk and in a later row that goes per row', () => {
  it('the per-row request waits for the chunk import, so the later row wins, as per row', async () => {
    const dir = tmpTree({
      'contacts.csv': 'id,email,tags\nC-1,old@example.com,x\nC-2,two@example.com,y\nC-1,new@example.com,a|b;c\n',
      'contacts.yaml':
        'resource: user\nsource: { file: contacts.csv }\nkey: id\nfields:\n  custom_id: id\n  email: email\n  tags: { column: tags, type: list }\n',
      'job.yaml': 'mappings: [contacts.yaml]\n',
    });
    const r = await run(dir, ['--bulk', 'always']);
    expect(r.report.map((l) => `${l.line} ${l.status}`)).toEqual(['2 ok', '3 ok', '4 ok']);
    const paths = requestPaths(r.sandbox);
    // A value holding | cannot be a bulk cell: line 4 went per row, after the import of line 2.
    expect(paths.findIndex((p) => p.startsWith('POST users/update_or_create/'))).toBeGreaterThan(
      paths.findLastIndex((p) => p.startsWith('GET import/status/')),
    );
    expect(r.sandbox.state.users().find((u) => u['custom_id'] === 'C-1')?.['email']).toBe('new@example.com');
  });

  it('a later row of that key that a chunk could carry follows the per-row one, so the last row still wins', async () => {
    const dir = tmpTree({
      'contacts.csv':
        'id,email,tags\nC-1,old@example.com,x\nC-2,two@example.com,y\nC-1,mid@example.com,a|b;c\nC-1,last@example.com,z\n',
      'contacts.yaml':
        'resource: user\nsource: { file: contacts.csv }\nkey: id\nfields:\n  custom_id: id\n  email: email\n  tags: { column: tags, type: list }\n',
      'job.yaml': 'mappings: [contacts.yaml]\n',
    });
    const r = await run(dir, ['--bulk', 'always']);
    expect(r.report.map((l) => `${l.line} ${l.status}`)).toEqual(['2 ok', '3 ok', '4 ok', '5 ok']);
    const sent = r.sandbox.requests
      .filter((q) => q.method === 'POST' && q.path.endsWith('users/update_or_create/'))
      .map((q) => (q.body as { email: string }).email);
    expect(sent).toEqual(['mid@example.com', 'last@example.com']);
    expect(r.sandbox.state.users().find((u) => u['custom_id'] === 'C-1')?.['email']).toBe('last@example.com');
  });
});
