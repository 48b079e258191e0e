/**
 * The invariant on generated product files where one custom_id is on several rows: per row, a
 * product is a create, so the first row with a key creates it and a later one is refused
 * ("already exists"); by bulk, the importer is an upsert. Both paths must still give every input
 * line the same status: the bulk path never uploads a later row with a key, and reports it failed
 * as the per-row create is, naming the line that created the product.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'csv-parse/sync';
import { afterEach, describe, expect, it } from 'vitest';
import { mulberry32, startSandbox, type Sandbox } from '../../src/sandbox/index.js';
import { fastClock } from '../helpers/fast-clock.js';
import { runCli } from '../helpers/run-cli.js';
import { importOnNewSandbox, requestPaths, type ReportLine } from '../helpers/import-on-sandbox.js';
import { tmpTree } from '../helpers/tmp.js';

const sandboxes: Sandbox[] = [];
afterEach(async () => {
  for (const s of sandboxes.splice(0)) await s.close();
});

type Line = ReportLine;
const EXISTS = 'custom_id: product with this custom id already exists.';

/** `rows` products whose SKUs are drawn from a pool of `pool` (so many repeat); about 1 in 12 has a price that is not a number (invalid here). */
function writeJob(seed: number, rows: number, pool: number): string {
  const random = mulberry32(seed);
  const lines = ['sku,title,price'];
  for (let i = 0; i < rows; i++) {
    const sku = `SKU-${Math.floor(random() * pool)}`;
    const price = random() < 1 / 12 ? 'n/a' : ((i % 50) + 0.5).toFixed(2);
    lines.push(`${sku},Product ${i},${price}`);
  }
  return tmpTree({
    'products.csv': `${lines.join('\n')}\n`,
    'products.yaml':
      'resource: product\nsource: { file: products.csv }\nkey: sku\nfields:\n  custom_id: { column: sku, required: true }\n  name: title\n  price: { column: price, type: number }\n',
    'job.yaml': 'mappings: [products.yaml]\n',
  });
}

const run = (dir: string, extra: string[], report: string) =>
  importOnNewSandbox(dir, extra, { opened: sandboxes, report });

describe('bulk imports: one product custom_id on several rows', () => {
  for (const seed of [7, 1313, 90210]) {
    it(`seed ${seed}: per row and by bulk, every line gets the same status; later rows with a key are not uploaded`, async () => {
      const dir = writeJob(seed, 150, 60);
      const perRow = await run(dir, ['--bulk', 'never'], `per-row-${seed}.csv`);
      const bulk = await run(dir, ['--bulk', 'always', '--bulk-chunk-rows', '40'], `bulk-${seed}.csv`);
      const statuses = (lines: Line[]) => lines.map((l) => `${l.line} ${l.key} ${l.status}`);
      expect(statuses(bulk.report)).toEqual(statuses(perRow.report));
      expect(new Set(bulk.report.map((l) => l.status))).toEqual(new Set(['ok', 'failed', 'invalid']));

      // Per row the API refuses the later creates; by bulk each is failed with the same words and
      // the line that created the product.
      const firstOk = new Map<string, string>();
      for (const l of perRow.report) if (l.status === 'ok') firstOk.set(l.key!, l.line!);
      for (const [p, b] of perRow.report.map((l, i) => [l, bulk.report[i]!] as const)) {
        if (p.status !== 'failed') continue;
        expect(p.message).toContain(EXISTS);
        expect(p.http_status).toBe('400');
        expect(b.message).toBe(
          `${EXISTS} (line ${firstOk.get(b.key!)} of this file already sent this product in this run, and a second create is refused, so this row was not uploaded)`,
        );
        expect(b.http_status).toBe('');
      }

      // The same products, with the same fields, on both sandboxes.
      const records = (s: Sandbox) =>
        s.state
          .products()
          .map(({ created_at: _c, id: _i, ...p }) => p)
          .sort((a, b) => a.custom_id.localeCompare(b.custom_id));
      expect(records(bulk.sandbox)).toEqual(records(perRow.sandbox));

      // Only the first valid row of each key went up; nothing went per row.
      const imported = bulk.sandbox.requests.filter((q) => q.method === 'IMPORT');
      expect(imported).toHaveLength(firstOk.size);
      expect(requestPaths(bulk.sandbox).filter((x) => x === 'POST products/')).toHaveLength(0);
      expect(bulk.stderr).toMatch(/products\.csv\s+product\s+bulk: /);
    }, 60_000);
  }
});

describe('bulk imports: a product created before an interruption', () => {
  it('a resume does not upload a later row with its custom_id: failed, as without the interruption', async () => {
    const lines = ['sku,title'];
    // More rows than the stage holds at once (2 chunks + 256), so the last is not read before Ctrl-C.
    for (let i = 0; i < 400; i++) lines.push(`P-${i},Product ${i}`);
    lines.push('P-0,Overwrite');
    const dir = tmpTree({
      'products.csv': `${lines.join('\n')}\n`,
      'products.yaml':
        'resource: product\nsource: { file: products.csv }\nkey: sku\nfields: { custom_id: { column: sku, required: true }, name: title }\n',
      'job.yaml': 'mappings: [products.yaml]\n',
    });
    const sandbox = await startSandbox({ port: 0, rate: 0, bulkRowsPerS: 0 });
    sandboxes.push(sandbox);
    const args = ['--base-url', sandbox.url, '--report', 'report.csv', '--state-dir', 'state', '--rate', '1000'];
    const env = { ENGAGE_API_KEY: sandbox.apiKey };
    const bulk = ['--bulk', 'always', '--bulk-chunk-rows', '4'];
    // Ctrl-C once three imports have been uploaded: P-0's chunk is done, line 402 not read yet.
    const controller = new AbortController();
    const uploads = () => sandbox.requests.filter((q) => q.method === 'POST' && q.path.endsWith('import/')).length;
    const timer = setInterval(() => uploads() >= 3 && controller.abort('SIGINT'), 1);
    const first = await runCli(['import', 'job.yaml', ...args, ...bulk], {
      cwd: dir,
      env,
      signal: controller.signal,
      clock: fastClock(),
    });
    clearInterval(timer);
    expect(first.code).toBe(130);
    const resumed = await runCli(['resume', ...args, ...bulk], { cwd: dir, env, clock: fastClock() });
    expect(resumed.code).toBe(1);
    const report = parse(readFileSync(join(dir, 'report.csv')), { columns: true }) as Line[];
    expect(report).toHaveLength(401);
    expect(report.at(-1)).toMatchObject({ line: '402', key: 'P-0', status: 'failed' });
    expect(report.at(-1)!.message).toContain('(line 2 of this file already sent this product in this run');
    expect(sandbox.state.products().find((p) => p['custom_id'] === 'P-0')?.['name']).toBe('Product 0');
  });
});
