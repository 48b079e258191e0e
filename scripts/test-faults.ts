/**
 * `npm run test:faults`: the exactly-once promise under faults. For each of 10 seeds, a job of
 * contacts, products, deals (update_or_create) and events is imported with default options
 * against the sandbox at 10% 500s (half of them after the write) and 3% dropped connections.
 * From the sandbox's request log, per row:
 * - applied twice while reported `ok` or `failed` (non-idempotent rows: products, events): must be 0;
 * - reported `ok` but never applied: must be 0;
 * - reported `failed` though applied: must be 0;
 * - `unknown`: the price of the default (never resend what may have been applied).
 * `--seeds N`, `--seed S` (first seed), `--rows N` (events; products are a sixth, deals a third).
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { parse } from 'csv-parse/sync';
import { main } from '../src/cli/main.js';
import { startSandbox, type Sandbox } from '../src/sandbox/index.js';

const arg = (name: string, fallback: number) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : fallback;
};
const seeds = arg('seeds', 10);
const firstSeed = arg('seed', 1);
const events = arg('rows', 300);
const products = Math.max(1, Math.round(events / 6));
const deals = Math.max(1, Math.round(events / 3));
const contacts = 20;

function writeJob(dir: string): void {
  const csv = (name: string, header: string, n: number, line: (i: number) => string) =>
    writeFileSync(join(dir, name), `${header}\n${Array.from({ length: n }, (_, i) => line(i)).join('\n')}\n`);
  csv('contacts.csv', 'custom_id,email', contacts, (i) => `C-${i},c${i}@example.com`);
  csv('products.csv', 'sku,name,price', products, (i) => `P-${i},Product ${i},${i + 0.5}`);
  csv('deals.csv', 'ref,customer,name,product', deals, (i) => `D-${i},C-${i % contacts},Deal ${i},P-${i % products}`);
  csv('events.csv', 'row,customer', events, (i) => `E-${i},C-${i % contacts}`);
  const files: Record<string, string> = {
    'contacts.yaml':
      'resource: user\nsource: { file: contacts.csv }\nkey: custom_id\nfields: { custom_id: custom_id, email: email }\n',
    'products.yaml':
      'resource: product\nsource: { file: products.csv }\nkey: sku\nfields: { custom_id: sku, name: name, price: { column: price, type: number } }\n',
    'deals.yaml':
      'resource: deal\noperation: update_or_create\nsource: { file: deals.csv }\nkey: ref\nfields:\n  custom_id: ref\n  user_custom_id: customer\n  name: name\n  products_custom_id: { column: product, type: list, separator: ";" }\n',
    'events.yaml':
      'resource: event\nsource: { file: events.csv }\nkey: row\nfields:\n  user_custom_id: customer\n  name: { value: Order Placed }\n  data.row: row\n',
    'job.yaml': 'mappings: [events.yaml, deals.yaml, products.yaml, contacts.yaml]\n',
  };
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
}

/** The row a logged request belongs to: `<resource>:<key>`. */
function rowOf(path: string, body: unknown): string | undefined {
  const b = (body ?? {}) as { custom_id?: unknown; data?: { row?: unknown } };
  if (/\/events\/$/.test(path) && typeof b.data?.row === 'string') return `event:${b.data.row}`;
  if (/\/products\/$/.test(path) && typeof b.custom_id === 'string') return `product:${b.custom_id}`;
  if (/\/deals\/update_or_create\/$/.test(path) && typeof b.custom_id === 'string') return `deal:${b.custom_id}`;
  if (/\/users\/update_or_create\/$/.test(path) && typeof b.custom_id === 'string') return `user:${b.custom_id}`;
  return undefined;
}

interface SeedResult {
  seed: number;
  exit: number;
  requests: number;
  appliedTwiceOkOrFailed: number;
  okNeverApplied: number;
  failedButApplied: number;
  unknown: number;
  notReportedOnce: number;
  statuses: Record<string, number>;
}

async function runSeed(seed: number): Promise<SeedResult> {
  const dir = mkdtempSync(join(tmpdir(), 'engage-faults-'));
  let sandbox: Sandbox | undefined;
  try {
    writeJob(dir);
    sandbox = await startSandbox({ rate: 0, failRate: 0.1, dropRate: 0.03, seed });
    const sink = new PassThrough().resume();
    const exit = await main(['import', 'job.yaml', '--rate', '1000', '--concurrency', '8', '--quiet'], {
      stdout: sink,
      stderr: sink,
      env: { ENGAGE_API_KEY: sandbox.apiKey, ENGAGE_BASE_URL: sandbox.url },
      cwd: dir,
      signal: new AbortController().signal,
    });
    const report = parse(readFileSync(join(dir, 'out/report.csv')), { columns: true }) as Record<string, string>[];
    const status = new Map<string, string>();
    const seen = new Map<string, number>();
    const statuses: Record<string, number> = {};
    for (const line of report) {
      const row = `${line.resource}:${line.key}`;
      status.set(row, line.status!);
      seen.set(row, (seen.get(row) ?? 0) + 1);
      statuses[line.status!] = (statuses[line.status!] ?? 0) + 1;
    }
    const applied = new Map<string, number>();
    for (const q of sandbox.requests) {
      const row = rowOf(q.path, q.body);
      if (row !== undefined && q.applied) applied.set(row, (applied.get(row) ?? 0) + 1);
    }
    const nonIdempotent = (row: string) => row.startsWith('event:') || row.startsWith('product:');
    let appliedTwiceOkOrFailed = 0;
    let okNeverApplied = 0;
    let failedButApplied = 0;
    for (const [row, s] of status) {
      const n = applied.get(row) ?? 0;
      if (n > 1 && nonIdempotent(row) && (s === 'ok' || s === 'failed')) appliedTwiceOkOrFailed++;
      if (s === 'ok' && n === 0) okNeverApplied++;
      if (s === 'failed' && n > 0) failedButApplied++;
    }
    const expected = contacts + products + deals + events;
    const notReportedOnce = Math.abs(expected - seen.size) + [...seen.values()].filter((n) => n !== 1).length;
    return {
      seed,
      exit,
      requests: sandbox.requests.length,
      appliedTwiceOkOrFailed,
      okNeverApplied,
      failedButApplied,
      unknown: statuses.unknown ?? 0,
      notReportedOnce,
      statuses,
    };
  } finally {
    await sandbox?.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

const results: SeedResult[] = [];
for (let s = firstSeed; s < firstSeed + seeds; s++) {
  const r = await runSeed(s);
  results.push(r);
  console.log(
    `seed ${r.seed}: exit ${r.exit}, ${r.requests} requests; applied twice while ok/failed ${r.appliedTwiceOkOrFailed}, ok never applied ${r.okNeverApplied}, ` +
      `failed though applied ${r.failedButApplied}, unknown ${r.unknown}; ${Object.entries(r.statuses)
        .map(([k, v]) => `${k} ${v}`)
        .join(', ')}`,
  );
}
const sum = (f: (r: SeedResult) => number) => results.reduce((n, r) => n + f(r), 0);
const rows = contacts + products + deals + events;
console.log(
  `\n${results.length} seeds × ${rows} rows (${contacts} contacts, ${products} products, ${deals} deals, ${events} events), 10% 500s (half after the write), 3% drops:\n` +
    `  applied twice while reported ok or failed: ${sum((r) => r.appliedTwiceOkOrFailed)} (must be 0)\n` +
    `  ok but never applied: ${sum((r) => r.okNeverApplied)} (must be 0)\n` +
    `  failed though applied: ${sum((r) => r.failedButApplied)} (must be 0)\n` +
    `  rows not reported exactly once: ${sum((r) => r.notReportedOnce)} (must be 0)\n` +
    `  unknown: ${sum((r) => r.unknown)} of ${rows * results.length} rows (${((100 * sum((r) => r.unknown)) / (rows * results.length)).toFixed(1)}%): the price of never resending what may have been applied`,
);
if (sum((r) => r.appliedTwiceOkOrFailed + r.okNeverApplied + r.failedButApplied + r.notReportedOnce) > 0)
  process.exitCode = 1;
