import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startSandbox, type Sandbox } from '../../src/sandbox/index.js';
import { runCli } from '../helpers/run-cli.js';
import { tmpTree } from '../helpers/tmp.js';

let sandbox: Sandbox | undefined;
const dirs: string[] = [];
afterEach(async () => {
  await sandbox?.close();
  sandbox = undefined;
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

// Line 4 goes back in time for P1 (after line 2); line 6 for P2 (after line 3). Line 5 is invalid.
const CSV = [
  'hit,sku,customer,action,at',
  'H1,P1,C1,view,2026-01-05T10:00:00Z',
  'H2,P2,C1,view,2026-01-05T09:00:00Z',
  'H3,P1,C1,purchase,2026-01-05T08:00:00Z',
  'H4,P1,C1,nonsense,2026-01-05T07:00:00Z',
  'H5,P2,C1,add to cart,2026-01-05T08:30:00Z',
  'H6,P3,C1,view,2026-01-05T06:00:00Z',
].join('\n');
const mapping = (order: string) => `resource: product-event
${order}source: { file: events.csv }
key: hit
fields:
  custom_id: sku
  user_custom_id: customer
  event_type: action
  timestamp: { column: at, type: unix }
  data: { value: {} }
`;

function tree(order: string) {
  const dir = tmpTree({ 'events.csv': CSV, 'mapping.yaml': mapping(order) });
  dirs.push(dir);
  return dir;
}

describe('product events out of time order', () => {
  it('validate warns with the first line out of order', async () => {
    const cwd = tree('');
    const r = await runCli(['validate', 'mapping.yaml', '--report', 'r.csv', '--json'], { cwd });
    expect(r.stderr).toContain(
      "    Warning: events.csv line 4: its timestamp is earlier than line 2's for the same product (2 rows go back in time). Each product event overwrites the product's attributes, so the older event sent last would win: sort the file by timestamp, or add `order: timestamp` to the mapping\n",
    );
    expect(JSON.parse(r.stdout).files[0].warnings).toHaveLength(1);
  });

  it('with `order: timestamp`, validate says the import sorts, and the import sends the valid rows in time order', async () => {
    const cwd = tree('order: timestamp\n');
    const v = await runCli(['validate', 'mapping.yaml', '--report', 'r.csv'], { cwd });
    expect(v.stderr).toContain(
      'the mapping says `order: timestamp`, so the import sends the valid rows sorted by timestamp',
    );
    sandbox = await startSandbox({
      rate: 0,
      fixtures: { users: [{ custom_id: 'C1' }], products: ['P1', 'P2', 'P3'].map((custom_id) => ({ custom_id })) },
    });
    const r = await runCli(
      [
        'import',
        'mapping.yaml',
        '--base-url',
        sandbox.url,
        '--report',
        'report.csv',
        '--state-dir',
        'state',
        '--rate',
        '1000',
        '--concurrency',
        '1',
      ],
      { cwd, env: { ENGAGE_API_KEY: sandbox.apiKey } },
    );
    expect(r.code).toBe(1); // line 5 is invalid
    const sent = sandbox.requests.map((q) => (q.body as { timestamp: number }).timestamp);
    expect(sent).toEqual([...sent].sort((a, b) => a - b));
    expect(sandbox.requests.map((q) => q.path)).toEqual(
      ['P3', 'P1', 'P2', 'P2', 'P1'].map((p) => `/api/public/products-by-id/${p}/product_event/`),
    );
    // The report: every line once, in input order, though the rows went in time order.
    const lines = readFileSync(join(cwd, 'report.csv'), 'utf8')
      .trim()
      .split('\n')
      .slice(1)
      .map((l) => l.split(',').slice(1, 2)[0]);
    expect(lines).toEqual(['2', '3', '4', '5', '6', '7']);
  });

  it('`order` on another resource is a configuration error', async () => {
    const cwd = tmpTree({
      'a.csv': 'sku\nS1\n',
      'm.yaml': 'resource: product\norder: timestamp\nsource: { file: a.csv }\nkey: sku\nfields: { custom_id: sku }\n',
    });
    dirs.push(cwd);
    const r = await runCli(['validate', 'm.yaml', '--report', 'r.csv'], { cwd });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('order: `order: timestamp` applies to product events only, not to product');
  });
});
