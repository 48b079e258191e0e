import { afterEach, describe, expect, it } from 'vitest';
import { startSandbox, type Sandbox } from '../../src/sandbox/index.js';
import { readReport } from '../helpers/read-report.js';
import { runCli } from '../helpers/run-cli.js';
import { tmpTree } from '../helpers/tmp.js';

let sandbox: Sandbox | undefined;
afterEach(async () => {
  await sandbox?.close();
  sandbox = undefined;
});

const PAIRS = 60;
/** Answers that take 0 to 10 ms, so that two requests in flight may well be answered out of order. */
const jittery = () => startSandbox({ rate: 0, latencyMs: 5, jitterMs: 5, seed: 7 });
const statuses = (dir: string) => readReport(dir).map((r) => `${r['line']}:${r['status']}`);

/** `csv` through `mapping` per row, 8 requests in flight, against a fresh sandbox with jittery answers. */
async function importPerRow(mapping: string, csv: string) {
  sandbox = await jittery();
  const dir = tmpTree({ 'rows.csv': csv, 'm.yaml': mapping });
  const env = { ENGAGE_API_KEY: sandbox.apiKey, ENGAGE_BASE_URL: sandbox.url };
  const r = await runCli(['import', 'm.yaml', '--bulk', 'never', '--rate', '1000', '--concurrency', '8'], {
    cwd: dir,
    env,
  });
  return { r, dir };
}

/** Two rows of each key, one after the other, sent per row with 8 requests in flight. */
describe('rows of one key are sent in file order, whatever the concurrency', () => {
  it('contacts: the account ends with the later row of each key', async () => {
    const rows = Array.from({ length: PAIRS * 2 }, (_, i) => `K-${Math.floor(i / 2)},row${i + 2}`);
    const { r } = await importPerRow(
      'resource: user\nsource: { file: rows.csv }\nkey: customer_id\nfields: { custom_id: customer_id, first_name: name }\n',
      `customer_id,name\n${rows.join('\n')}\n`,
    );
    expect(r.code).toBe(0);
    const names = new Map(sandbox!.state.users().map((u) => [String(u['custom_id']), String(u['first_name'])]));
    for (let k = 0; k < PAIRS; k++) expect([k, names.get(`K-${k}`)]).toEqual([k, `row${2 * k + 3}`]);
  });

  it('products: the first row of each custom_id creates it, the second is refused as existing', async () => {
    const rows = Array.from({ length: PAIRS * 2 }, (_, i) => `P-${Math.floor(i / 2)},T${i},${i + 1}`);
    const { r, dir } = await importPerRow(
      'resource: product\nsource: { file: rows.csv }\nkey: sku\nfields:\n  custom_id: { column: sku, required: true }\n  name: title\n  price: { column: price, type: number }\n',
      `sku,title,price\n${rows.join('\n')}\n`,
    );
    expect(r.code).toBe(1);
    expect(statuses(dir)).toEqual(
      Array.from({ length: PAIRS * 2 }, (_, i) => `${i + 2}:${i % 2 === 0 ? 'ok' : 'failed'}`),
    );
  });
});

describe('product events of one product are sent in file order, whatever the concurrency', () => {
  it('reach the API in ascending timestamp order, as the product profile needs', async () => {
    sandbox = await startSandbox({
      rate: 0,
      latencyMs: 5,
      jitterMs: 5,
      seed: 7,
      fixtures: { users: [{ custom_id: 'U0' }], products: [{ custom_id: 'P1', name: 'p' }] },
    });
    // Written newest first; `order: timestamp` sends them oldest first.
    const rows = Array.from({ length: 120 }, (_, i) => `H${i},P1,U0,view,${1767225600 + (120 - i) * 60}`);
    const dir = tmpTree({
      'pe.csv': `hit,sku,user,action,ts\n${rows.join('\n')}\n`,
      'pe.yaml':
        'resource: product-event\nsource: { file: pe.csv }\nkey: hit\norder: timestamp\nfields:\n  custom_id: { column: sku, required: true }\n  user_custom_id: user\n  event_type: action\n  timestamp: { column: ts, type: unix }\n  data.hit: hit\n',
    });
    const env = { ENGAGE_API_KEY: sandbox.apiKey, ENGAGE_BASE_URL: sandbox.url };
    const r = await runCli(['import', 'pe.yaml', '--rate', '1000', '--concurrency', '8'], { cwd: dir, env });
    expect(r.code, r.stderr).toBe(0);
    const stored = sandbox.state.productEvents().map((e) => e.timestamp);
    expect(stored).toHaveLength(120);
    expect(stored).toEqual([...stored].sort((a, b) => a - b));
    // The product ends with the newest event's values (H0 is the newest row), not a stale one.
    expect(sandbox.state.products()[0]?.attributes).toEqual({ hit: 'H0' });
  });
});
