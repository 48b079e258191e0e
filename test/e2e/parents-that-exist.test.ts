/**
 * A product create refused because its custom_id exists already leaves the product in the account:
 * the deals that name it must be sent, not skipped as if their product were missing. Two ways to
 * get there: a later row of the file with the same custom_id (the earlier row created it), and a
 * second plain run of the same job (every product exists from the first).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { startSandbox, type Sandbox } from '../../src/sandbox/index.js';
import { importOnNewSandbox, requestPaths } from '../helpers/import-on-sandbox.js';
import { runCli } from '../helpers/run-cli.js';
import { fastClock } from '../helpers/fast-clock.js';
import { tmpTree } from '../helpers/tmp.js';

const sandboxes: Sandbox[] = [];
afterEach(async () => {
  for (const s of sandboxes.splice(0)) await s.close();
});

const EXISTS = 'custom_id: product with this custom id already exists.';

function job(products: string[]): string {
  return tmpTree({
    'products.csv': `sku,title\n${products.join('\n')}\n`,
    'products.yaml':
      'resource: product\nsource: { file: products.csv }\nkey: sku\nfields:\n  custom_id: { column: sku, required: true }\n  name: title\n',
    'deals.csv': 'ref,title,skus\nQD-1,Deal one,Q-1\nQD-2,Deal two,Q-2\n',
    'deals.yaml':
      'resource: deal\noperation: update_or_create\nsource: { file: deals.csv }\nkey: ref\nfields:\n  custom_id: { column: ref, required: true }\n  name: { column: title, required: true }\n  products_custom_id: { column: skus, type: list, separator: ";" }\n',
    'job.yaml': 'mappings: [products.yaml, deals.yaml]\n',
  });
}

/** Products again, then the deals of: the second Q-1 is refused, both deals are sent. */
const LATER_ROW_REFUSED = [
  'products.csv 2 ok',
  'products.csv 3 ok',
  'products.csv 4 failed',
  'deals.csv 2 ok',
  'deals.csv 3 ok',
];

const statuses = (report: Record<string, string>[]) => report.map((l) => `${l.file} ${l.line} ${l.status}`);

describe('a parent whose create was refused because it exists already', () => {
  it('a later row with the same custom_id: failed itself, and the deals that name the product are sent', async () => {
    const dir = job(['Q-1,First', 'Q-2,Second', 'Q-1,Again']);
    const run = await importOnNewSandbox(dir, ['--bulk', 'never'], { opened: sandboxes });
    expect(statuses(run.report)).toEqual(LATER_ROW_REFUSED);
    expect(run.report[2]!.message).toBe(
      `${EXISTS} (line 2 of this file created this product in this run: keep one row per product in the file, the one whose values are wanted, and a bulk import updates it)`,
    );
    // One row, one error group.
    expect(run.stderr.match(/× \[failed\]/g)).toHaveLength(1);
    expect(requestPaths(run.sandbox).filter((p) => p === 'POST deals/update_or_create/')).toHaveLength(2);
  }, 30_000);

  it('by bulk (products only), the later row is refused without an upload, and the deal is sent too', async () => {
    const dir = job(['Q-1,First', 'Q-2,Second', 'Q-1,Again']);
    const run = await importOnNewSandbox(dir, ['--bulk', 'auto', '--bulk-min-rows', '1'], { opened: sandboxes });
    expect(run.stderr).toMatch(/products\.csv\s+product\s+bulk: /);
    // One refused row, one error group, as per row.
    expect(run.stderr.match(/× \[failed\]/g)).toHaveLength(1);
    expect(statuses(run.report)).toEqual(LATER_ROW_REFUSED);
  }, 30_000);

  it('a second plain run: every product exists, and every deal is still sent', async () => {
    const dir = job(['Q-1,First', 'Q-2,Second']);
    const first = await importOnNewSandbox(dir, ['--bulk', 'never'], { opened: sandboxes });
    expect(first.code).toBe(0);
    const again = await runCli(
      [
        'import',
        'job.yaml',
        '--base-url',
        first.sandbox.url,
        '--report',
        'again.csv',
        '--state-dir',
        'state-report.csv',
        '--rate',
        '10000',
        '--bulk',
        'never',
      ],
      { cwd: dir, env: { ENGAGE_API_KEY: first.sandbox.apiKey }, clock: fastClock() },
    );
    expect(again.code).toBe(1);
    expect(again.stderr).toMatch(/deals\.csv\s+deal\s+ok 2\b/);
    expect(again.stderr).not.toContain('skipped');
    expect(requestPaths(first.sandbox).filter((p) => p === 'POST deals/update_or_create/')).toHaveLength(4);
  }, 30_000);

  it('after an interruption, the resume still sends the deals of the product refused as existing', async () => {
    const deals = Array.from({ length: 40 }, (_, i) => `QD-${i},Deal ${i},Q-1`);
    const dir = tmpTree({
      'products.csv': 'sku,title\nQ-1,First\nQ-2,Second\nQ-1,Again\n',
      'products.yaml':
        'resource: product\nsource: { file: products.csv }\nkey: sku\nfields:\n  custom_id: { column: sku, required: true }\n  name: title\n',
      'deals.csv': `ref,title,skus\n${deals.join('\n')}\n`,
      'deals.yaml':
        'resource: deal\noperation: update_or_create\nsource: { file: deals.csv }\nkey: ref\nfields:\n  custom_id: { column: ref, required: true }\n  name: { column: title, required: true }\n  products_custom_id: { column: skus, type: list, separator: ";" }\n',
      'job.yaml': 'mappings: [products.yaml, deals.yaml]\n',
    });
    const sandbox = await startSandbox({ rate: 0, latencyMs: 5 });
    sandboxes.push(sandbox);
    const env = { ENGAGE_API_KEY: sandbox.apiKey, ENGAGE_BASE_URL: sandbox.url };
    const common = ['--rate', '1000', '--bulk', 'never', '--concurrency', '1', '--report', 'report.csv'];
    const controller = new AbortController();
    const stop = setInterval(() => {
      if (requestPaths(sandbox).filter((p) => p.startsWith('POST deals/')).length >= 5) controller.abort('SIGINT');
    }, 1);
    const first = await runCli(['import', 'job.yaml', ...common], { cwd: dir, env, signal: controller.signal });
    clearInterval(stop);
    expect(first.code).toBe(130);
    const resumed = await runCli(['resume', ...common], { cwd: dir, env });
    expect(resumed.stderr).toMatch(/deals\.csv\s+deal\s+ok 40\b/);
    expect(resumed.stderr).not.toContain('skipped');
    expect(requestPaths(sandbox).filter((p) => p === 'POST deals/update_or_create/')).toHaveLength(40);
  }, 30_000);
});
