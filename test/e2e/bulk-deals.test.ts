/**
 * Deals by bulk end to end: a job of products and contacts (bulk in `auto`), deals whose mapping
 * says `bulk: true` and names the importer's header of every field (`bulk_header:`), then events
 * per row. Checked: each row's report line and status, bulk messages naming their import, the
 * skips of the cascade, the order of the stages and the requests in the sandbox's request log.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { Sandbox } from '../../src/sandbox/index.js';
import { importOnNewSandbox } from '../helpers/import-on-sandbox.js';
import { tmpTree } from '../helpers/tmp.js';

const sandboxes: Sandbox[] = [];
afterEach(async () => {
  for (const s of sandboxes.splice(0)) await s.close();
});

type Line = Record<string, string>;

/**
 * 20 products; 120 contacts, every 10th from the 4th setting shoe_size, a custom attribute the
 * account does not have (refused by the service alone); 90 deals, deal i for contact C-i and
 * products SKU-(i mod 20) and SKU-(i+1 mod 20), every 15th from the 8th naming a contact that
 * does not exist (refused by the service alone); one event per contact.
 */
function writeJob(): string {
  const products = ['sku,title,price'];
  for (let i = 0; i < 20; i++) products.push(`SKU-${i},Product ${i},${i + 0.5}`);
  const contacts = ['customer_id,email,tier,shoe_size'];
  const events = ['event_id,customer_id,event,occurred_at'];
  for (let i = 0; i < 120; i++) {
    contacts.push(`C-${i},c${i}@example.com,gold,${i % 10 === 3 ? '42' : ''}`);
    events.push(`EV-${i},C-${i},signup,2026-01-05T09:12:44Z`);
  }
  const deals = ['deal_id,title,amount,customer_id,skus'];
  for (let i = 0; i < 90; i++)
    deals.push(
      `D-${i},Deal ${i},${100 + i}.25,${i % 15 === 7 ? `C-NOPE-${i}` : `C-${i}`},SKU-${i % 20};SKU-${(i + 1) % 20}`,
    );
  return tmpTree({
    'products.csv': `${products.join('\n')}\n`,
    'contacts.csv': `${contacts.join('\n')}\n`,
    'deals.csv': `${deals.join('\n')}\n`,
    'events.csv': `${events.join('\n')}\n`,
    'products.yaml':
      'resource: product\nsource: { file: products.csv }\nkey: sku\nfields:\n  custom_id: { column: sku, required: true }\n  name: title\n  price: { column: price, type: number }\n',
    'contacts.yaml':
      'resource: user\nsource: { file: contacts.csv }\nkey: customer_id\nfields:\n  custom_id: { column: customer_id, required: true }\n  email: email\n  tier: tier\n  shoe_size: shoe_size\n',
    'deals.yaml': [
      'resource: deal',
      'operation: update_or_create',
      'bulk: true',
      'source: { file: deals.csv }',
      'key: deal_id',
      'fields:',
      '  custom_id: { column: deal_id, required: true, bulk_header: Deal Id }',
      '  name: { column: title, bulk_header: Name }',
      '  value: { column: amount, type: number, bulk_header: value }',
      '  user_custom_id: { column: customer_id, bulk_header: user_custom_id }',
      "  products_custom_id: { column: skus, type: list, separator: ';', bulk_header: products_custom_id }",
      '',
    ].join('\n'),
    'events.yaml':
      'resource: event\nsource: { file: events.csv }\nkey: event_id\nfields:\n  user_custom_id: { column: customer_id, required: true }\n  name: event\n  timestamp: { column: occurred_at, type: unix }\n',
    'job.yaml': 'mappings: [events.yaml, deals.yaml, contacts.yaml, products.yaml]\n',
  });
}

describe('deals by bulk end to end', () => {
  it('products and contacts by bulk (auto), deals by bulk (bulk: true, bulk_header:), then events per row', async () => {
    const dir = writeJob();
    const r = await importOnNewSandbox(dir, ['--bulk-min-rows', '10'], {
      opened: sandboxes,
      sandbox: { fixtures: { userAttributes: ['tier'] } },
    });
    const { sandbox, report } = r;
    expect(r.code, r.stderr).toBe(1); // rows failed, as they should
    const of = (resource: string) => report.filter((l) => l.resource === resource);
    const count = (lines: Line[], status: string) => lines.filter((l) => l.status === status).length;

    // Every input row has its one line.
    expect(of('product').map((l) => Number(l.line))).toEqual(Array.from({ length: 20 }, (_, i) => i + 2));
    expect(of('user').map((l) => Number(l.line))).toEqual(Array.from({ length: 120 }, (_, i) => i + 2));
    expect(of('deal').map((l) => Number(l.line))).toEqual(Array.from({ length: 90 }, (_, i) => i + 2));
    expect(of('event').map((l) => Number(l.line))).toEqual(Array.from({ length: 120 }, (_, i) => i + 2));

    // Uploads, by their answers in the request log: one import per stage.
    const uploads = (kind: string) =>
      sandbox.requests.filter((q) => q.method === 'POST' && q.path.endsWith(`/${kind}/import/`));
    const [productImport, contactImport, dealImport] = ['products', 'users', 'deals'].map((k) => {
      const up = uploads(k);
      expect(up, k).toHaveLength(1);
      expect(up[0]!.status).toBe(200);
      return up[0]!.importId!;
    });

    expect(count(of('product'), 'ok')).toBe(20);
    for (const l of of('product')) expect(l.message).toBe(`imported by bulk import ${productImport}`);

    const contacts = of('user');
    expect(contacts.filter((l) => l.status === 'failed').map((l) => l.key)).toEqual(
      Array.from({ length: 12 }, (_, k) => `C-${k * 10 + 3}`),
    );
    for (const l of contacts.filter((c) => c.status === 'failed'))
      expect(l.message).toBe(
        `bulk import ${contactImport}: shoe_size: Custom attribute "shoe_size" does not exist in the account.`,
      );
    expect(count(contacts, 'ok')).toBe(108);

    // Deals: those of a refused contact are skipped (never uploaded), those naming an unknown
    // contact are refused by the service with its message and the import's id; the rest ok.
    const deals = of('deal');
    const dealStatus = (i: number) => (i % 10 === 3 ? 'skipped' : i % 15 === 7 ? 'failed' : 'ok');
    expect(deals.map((l) => `${l.key} ${l.status}`)).toEqual(
      Array.from({ length: 90 }, (_, i) => `D-${i} ${dealStatus(i)}`),
    );
    for (const [i, l] of deals.entries()) {
      expect(l.http_status).toBe('');
      if (l.status === 'ok') expect(l.message).toBe(`imported by bulk import ${dealImport}`);
      if (l.status === 'failed')
        expect(l.message).toBe(
          `bulk import ${dealImport}: user_custom_id: Object with custom_id=C-NOPE-${i} does not exist.`,
        );
      if (l.status === 'skipped') expect(l.message).toContain(`C-${i}`);
    }
    // The importer applied only the deals that were not skipped, with their fields and lists.
    const imported = sandbox.requests.filter((q) => q.method === 'IMPORT' && q.importId === dealImport);
    expect(imported).toHaveLength(81);
    const records = sandbox.state.deals();
    expect(records).toHaveLength(75);
    expect(records.find((d) => d.custom_id === 'D-19')).toMatchObject({
      name: 'Deal 19',
      value: '119.25',
      user_custom_id: 'C-19',
      products_custom_id: ['SKU-19', 'SKU-0'],
    });

    // Events per row, after every import finished; those of a refused contact are skipped.
    const events = of('event');
    expect(count(events, 'ok')).toBe(108);
    expect(count(events, 'skipped')).toBe(12);
    for (const l of events.filter((e) => e.status === 'ok')) expect(l.http_status).toMatch(/^2\d\d$/);

    // The request log: three uploads, their polls, one request per sent event, nothing else.
    const log = sandbox.requests.filter((q) => q.method !== 'IMPORT');
    const kindOf = (q: (typeof log)[number]) =>
      q.method === 'GET' && q.path.includes('import/status/')
        ? `poll ${[productImport, contactImport, dealImport].find((id) => q.path.includes(id!)) ?? '?'}`
        : /^\/api\/public\/users-by-id\/C-\d+\/events\/$/.test(q.path)
          ? `${q.method} event`
          : `${q.method} ${q.path.replace('/api/public/', '')}`;
    const kinds = log.map(kindOf);
    expect(kinds.filter((k) => k === 'POST event')).toHaveLength(108);
    expect(kinds.filter((k) => k === 'poll ?')).toHaveLength(0);
    expect(kinds.filter((k) => !k.startsWith('poll ') && k !== 'POST event')).toEqual([
      'POST products/import/',
      'POST users/import/',
      'POST deals/import/',
    ]);
    // Dependency order: each import polled to its end before the next stage's first request.
    const lastPoll = (id: string) => kinds.lastIndexOf(`poll ${id}`);
    expect(lastPoll(productImport!)).toBeLessThan(kinds.indexOf('POST users/import/'));
    expect(lastPoll(contactImport!)).toBeLessThan(kinds.indexOf('POST deals/import/'));
    expect(lastPoll(dealImport!)).toBeLessThan(kinds.indexOf('POST event'));
    expect(lastPoll(dealImport!)).toBeGreaterThan(kinds.indexOf('POST deals/import/'));

    // The summary line of the deals stage says bulk, and counts its upload and polls.
    const summary =
      /deals\.csv\s+deal\s+bulk: (?:\d+ of )?\d+ rows in 1 imports?, ok 75, failed 6, skipped 9, (\d+) requests/.exec(
        r.stderr,
      );
    expect(summary, r.stderr).not.toBeNull();
    expect(Number(summary![1])).toBe(1 + kinds.filter((k) => k === `poll ${dealImport}`).length);
  }, 60_000);
});
