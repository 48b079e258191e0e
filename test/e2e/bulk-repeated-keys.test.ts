/**
 * A contact key that repeats every few rows (a placeholder custom_id such as GUEST) in a plain
 * run by bulk: one import cannot hold two rows of a key, so each later row of the key goes per row
 * once the import holding the earlier one has settled, and the chunks go on filling. Every line
 * gets the status it gets per row, the account ends with the last row's values, and the dry run
 * says how many rows go per row.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { startSandbox, type Sandbox } from '../../src/sandbox/index.js';
import { fastClock } from '../helpers/fast-clock.js';
import { importsEnded } from '../helpers/imports-ended.js';
import { importOnNewSandbox, requestPaths } from '../helpers/import-on-sandbox.js';
import { runCli } from '../helpers/run-cli.js';
import { tmpTree } from '../helpers/tmp.js';

const sandboxes: Sandbox[] = [];
afterEach(async () => {
  for (const s of sandboxes.splice(0)) await s.close();
});

/** 200 distinct contacts, and GUEST after every 10th (20 GUEST rows, named Guest 1 … Guest 20). */
function writeJob(): string {
  const lines = ['customer_id,first_name'];
  let guests = 0;
  for (let i = 0; i < 200; i++) {
    lines.push(`C-${i},First ${i}`);
    if (i % 10 === 9) lines.push(`GUEST,Guest ${++guests}`);
  }
  return tmpTree({
    'contacts.csv': `${lines.join('\n')}\n`,
    'contacts.yaml':
      'resource: user\nsource: { file: contacts.csv }\nkey: customer_id\nfields:\n  custom_id: { column: customer_id, required: true }\n  first_name: first_name\n',
    'job.yaml': 'mappings: [contacts.yaml]\n',
  });
}

describe('bulk imports: a key that repeats every few rows', () => {
  it('does not cut every chunk short: one import, the later rows of the key per row, in file order, as per row', async () => {
    const dir = writeJob();
    const bulk = await importOnNewSandbox(dir, ['--bulk', 'always', '--bulk-chunk-rows', '1000'], {
      opened: sandboxes,
      report: 'bulk.csv',
    });
    const perRow = await importOnNewSandbox(dir, ['--bulk', 'never'], { opened: sandboxes, report: 'per-row.csv' });
    expect(bulk.code, bulk.stderr).toBe(0);
    const statuses = (lines: Record<string, string>[]) => lines.map((l) => `${l.line} ${l.key} ${l.status}`);
    expect(statuses(bulk.report)).toEqual(statuses(perRow.report));
    expect(bulk.report).toHaveLength(220);

    const paths = requestPaths(bulk.sandbox);
    expect(paths.filter((p) => p === 'POST users/import/')).toHaveLength(1);
    // The first GUEST went up with the others; the 19 later ones per row, after the import had ended.
    const perRowSends = paths.flatMap((p, i) => (p === 'POST users/update_or_create/' ? [i] : []));
    expect(perRowSends).toHaveLength(19);
    const lastPoll = paths.lastIndexOf('GET import/status/');
    expect(perRowSends.every((i) => i > lastPoll)).toBe(true);
    // The account ends as per row: the last GUEST row's values.
    const guest = (s: Sandbox) => s.state.users().find((u) => u.custom_id === 'GUEST');
    expect(guest(bulk.sandbox)?.first_name).toBe('Guest 20');
    expect(guest(perRow.sandbox)?.first_name).toBe('Guest 20');
    expect(bulk.stderr).toContain('bulk: 201 of 220 rows in 1 import, ok 220');
  });

  it('the dry run counts those rows as per-row requests', async () => {
    const dir = writeJob();
    const r = await runCli(['validate', 'job.yaml', '--bulk', 'always', '--bulk-chunk-rows', '1000'], { cwd: dir });
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(
      /\(bulk: 1 import and 19 rows per row \(a key repeating in a chunk, or a value no CSV cell carries\), \d+ requests/,
    );
  });

  it('the dry run counts a row whose value no CSV cell carries (null) as a per-row request, as the live run sends it', async () => {
    const dir = tmpTree({
      'contacts.csv': 'customer_id,first_name\nC-1,Ann\nC-2,\nC-3,Cy\n',
      'job.yaml':
        'resource: user\nsource: { file: contacts.csv }\nkey: customer_id\nfields:\n  custom_id: { column: customer_id, required: true }\n  first_name: { column: first_name, empty: "null" }\n',
    });
    const dry = await runCli(['validate', 'job.yaml', '--bulk', 'always'], { cwd: dir });
    expect(dry.stderr).toMatch(
      /\(bulk: 1 import and 1 row per row \(a key repeating in a chunk, or a value no CSV cell carries\)/,
    );
    expect(dry.stderr).toMatch(/bulk: 2 rows in 1 import/);
    const live = await importOnNewSandbox(dir, ['--bulk', 'always'], { opened: sandboxes, report: 'live.csv' });
    expect(live.code, live.stderr).toBe(0);
    const paths = requestPaths(live.sandbox);
    expect(paths.filter((p) => p === 'POST users/import/')).toHaveLength(1);
    expect(paths.filter((p) => p === 'POST users/update_or_create/')).toHaveLength(1);
  });

  it('the dry run follows a key whose earlier row went per row (a null): its later rows go per row too, or for a product not at all', async () => {
    const users = tmpTree({
      'contacts.csv': 'customer_id,first_name\nK1,\nK1,Ann\nK2,Bo\nK2,Bob\nK3,Cy\nK3,\n',
      'job.yaml':
        'resource: user\nsource: { file: contacts.csv }\nkey: customer_id\nfields:\n  custom_id: { column: customer_id, required: true }\n  first_name: { column: first_name, empty: "null" }\n',
    });
    const dry = await runCli(['validate', 'job.yaml', '--bulk', 'always'], { cwd: users });
    expect(dry.stderr).toMatch(/\(bulk: 1 import and 4 rows per row /);
    const live = await importOnNewSandbox(users, ['--bulk', 'always'], { opened: sandboxes, report: 'live.csv' });
    expect(requestPaths(live.sandbox).filter((p) => p === 'POST users/update_or_create/')).toHaveLength(4);

    const products = tmpTree({
      'products.csv': 'sku,title\nP1,\nP1,Mug\nP2,Cup\nP2,\nP3,Plate\n',
      'job.yaml':
        'resource: product\nsource: { file: products.csv }\nkey: sku\nfields:\n  custom_id: { column: sku, required: true }\n  name: { column: title, empty: "null" }\n',
    });
    const dryProducts = await runCli(['validate', 'job.yaml', '--bulk', 'always'], { cwd: products });
    expect(dryProducts.stderr).toMatch(
      /\(bulk: 1 import and 1 row per row .*; 2 rows not sent, an earlier row creates its product/,
    );
    const liveProducts = await importOnNewSandbox(products, ['--bulk', 'always'], {
      opened: sandboxes,
      report: 'live.csv',
    });
    const paths = requestPaths(liveProducts.sandbox);
    expect(paths.filter((p) => p === 'POST products/')).toHaveLength(1);
    expect(paths.filter((p) => p === 'POST products/import/')).toHaveLength(1);
  });

  it("the dry run counts no request for a product's repeated rows: the live run refuses them without one", async () => {
    const rows = Array.from({ length: 30 }, (_, i) => `SKU-${i % 10},Product ${i}`);
    const dir = tmpTree({
      'products.csv': `sku,title\n${rows.join('\n')}\n`,
      'job.yaml':
        'resource: product\nsource: { file: products.csv }\nkey: sku\nfields:\n  custom_id: { column: sku, required: true }\n  name: title\n',
    });
    // Chunks of 10: the 10 products fill one; their 20 later rows go in none, whichever chunk they would fall in.
    const r = await runCli(['validate', 'job.yaml', '--bulk', 'always', '--bulk-chunk-rows', '10'], { cwd: dir });
    expect(r.stderr).toMatch(/\(bulk: 1 import; 20 rows not sent, an earlier row creates its product, \d+ requests/);
    expect(r.stderr).toMatch(/bulk: 10 rows in 1 import/);
    expect(r.stderr).not.toContain('per row');
    const live = await importOnNewSandbox(dir, ['--bulk', 'always', '--bulk-chunk-rows', '10'], {
      opened: sandboxes,
      report: 'live.csv',
    });
    expect(live.stderr).toContain('bulk: 10 of 30 rows in 1 import');
    expect(requestPaths(live.sandbox).filter((p) => p === 'POST products/import/')).toHaveLength(1);
  });

  it('a resume that waits for the recorded import again polls it as one chunk, whatever repeats sit between its rows', async () => {
    const dir = writeJob();
    // 100 rows a second at the service: the first import outlives --bulk-timeout (on fake time).
    const sandbox = await startSandbox({ port: 0, rate: 0, bulkRowsPerS: 100 });
    sandboxes.push(sandbox);
    const env = { ENGAGE_API_KEY: sandbox.apiKey, ENGAGE_BASE_URL: sandbox.url };
    const common = ['--bulk', 'always', '--bulk-chunk-rows', '1000', '--rate', '10000'];
    const stopped = await runCli(['import', 'job.yaml', ...common, '--bulk-timeout', '0.001'], {
      cwd: dir,
      env,
      clock: fastClock(),
    });
    expect(stopped.code).toBe(3);
    await importsEnded(sandbox);
    const before = sandbox.requests.length;
    const resumed = await runCli(['resume'], { cwd: dir, env, clock: fastClock() });
    expect(resumed.code, resumed.stderr).toBe(0);
    const paths = requestPaths(sandbox).slice(before);
    // The recorded import polled (once: it has ended), nothing uploaded again, the 19 repeats per row.
    expect(paths.filter((p) => p === 'POST users/import/')).toHaveLength(0);
    expect(paths.filter((p) => p.startsWith('GET import/status/'))).toHaveLength(1);
    expect(paths.filter((p) => p === 'POST users/update_or_create/')).toHaveLength(19);
    expect(resumed.stderr).toContain('in 1 import');
    expect(sandbox.state.users().find((u) => u.custom_id === 'GUEST')?.first_name).toBe('Guest 20');
  });
});
