/**
 * Bulk CSV imports of products and deals, seeded faults on imports, the request log of an import,
 * and reset: docs/api-contract.md R-BULK-1 … R-BULK-10 and the assumptions of docs/conformance.md.
 */
import { describe, expect, it } from 'vitest';
import { importAndWait, settle, upload } from './_bulk.js';
import { products, sandbox, users } from './_helpers.js';

describe('products: an upsert by custom_id with the per-row field rules', () => {
  it('a product already there is updated (no "already exists" as on POST /products/); empty cells keep values', async () => {
    const s = await sandbox({ bulkRowsPerS: 0 });
    await products(s, 'SKU-1');
    const status = await importAndWait(
      s,
      'products',
      'custom_id,name,price,category_name,colour\nSKU-1,,19.99,Shoes,red\nSKU-2,Hat,5,,\n',
    );
    expect(status).toMatchObject({ status: 'finished', succeeded: 2, failed: 0 });
    const [one, two] = s.state.products();
    expect(one).toMatchObject({
      id: 1,
      custom_id: 'SKU-1',
      name: 'SKU-1',
      price: 19.99,
      category_name: 'Shoes',
      attributes: { colour: 'red' },
    });
    expect(two).toMatchObject({
      id: 2,
      custom_id: 'SKU-2',
      name: 'Hat',
      price: 5,
      category_name: null,
      attributes: {},
    });
  });

  it('column_mapping as in the docs ({"product": "custom_id", "url": "product_url"})', async () => {
    const s = await sandbox({ bulkRowsPerS: 0 });
    await importAndWait(s, 'products', 'product,url\nSKU-9,https://shop.example/9\n', {
      fields: { column_mapping: '{"product": "custom_id", "url": "product_url"}' },
    });
    expect(s.state.products()[0]).toMatchObject({ custom_id: 'SKU-9', product_url: 'https://shop.example/9' });
  });

  it.each([
    ['a price that is not a number', 'SKU-1,abc', { price: ['A valid number is required.'] }],
    ['no custom_id', ',5', { custom_id: ['This field is required.'] }],
  ])('%s: the row fails with the per-row message', async (_case, line, errors) => {
    const s = await sandbox({ bulkRowsPerS: 0 });
    const status = await importAndWait(s, 'products', `custom_id,price\n${line}\n`);
    expect(status).toMatchObject({ succeeded: 0, failed: 1 });
    expect(status.rows_with_errors[0].errors).toEqual(errors);
    expect(s.state.products()).toEqual([]);
  });
});

describe('deals: header names (assumption: the API field names, and "Deal Id" / "Name" from the docs)', () => {
  it('creates deals, then updates the one with the same custom_id; lists separated by "|"; order_products as JSON', async () => {
    const s = await sandbox({ bulkRowsPerS: 0 });
    const [u1, u2] = await users(s, 'C-1', 'C-2');
    await products(s, 'SKU-1', 'SKU-2');
    const csv = [
      'Deal Id,Name,value,status,pipeline,stage,user_custom_id,participants,products_custom_id,order_products',
      `D-1,First,100.5,1,1,2,C-1,${u1}|${u2},SKU-1|SKU-2,"[{""product_custom_id"": ""SKU-1"", ""quantity"": 2, ""value"": ""10.00"", ""currency"": ""EUR""}]"`,
      'D-2,Second,,,,,,,,',
    ].join('\n');
    expect(await importAndWait(s, 'deals', csv)).toMatchObject({ succeeded: 2, failed: 0 });
    expect(await importAndWait(s, 'deals', 'custom_id,name\nD-1,First (renamed)\n')).toMatchObject({ succeeded: 1 });
    const deals = s.state.deals();
    expect(deals).toHaveLength(2);
    expect(deals[0]).toMatchObject({
      custom_id: 'D-1',
      name: 'First (renamed)',
      value: '100.50',
      status: 1,
      pipeline: 1,
      stage: 2,
      user_id: u1,
      participants: [u1, u2],
      products_custom_id: ['SKU-1', 'SKU-2'],
      order_products: [{ product_id: 1, product_custom_id: 'SKU-1', quantity: 2, value: '10.00', currency: 'EUR' }],
    });
    expect(deals[1]).toMatchObject({ custom_id: 'D-2', name: 'Second', value: '0.00', status: 1 });
  });

  it('a deal row is refused with the messages of POST /deals/update_or_create/ (every field at once)', async () => {
    const s = await sandbox({ bulkRowsPerS: 0 });
    const row = { custom_id: 'D-1', status: '9', user_custom_id: 'NOPE', pipeline: '99' };
    const perRow = await s.call('POST', 'deals/update_or_create/', row);
    expect(perRow.status).toBe(400);
    const status = await importAndWait(s, 'deals', `custom_id,status,user_custom_id,pipeline\nD-1,9,NOPE,99\n`);
    expect(status.rows_with_errors).toEqual([{ row: 2, data: row, errors: perRow.body }]);
    expect(s.state.deals()).toEqual([]);
  });

  it('order_products that is not JSON fails the row', async () => {
    const s = await sandbox({ bulkRowsPerS: 0 });
    const status = await importAndWait(s, 'deals', 'custom_id,order_products\nD-1,[{\n');
    expect(status.rows_with_errors[0].errors).toEqual({ order_products: ['Value must be valid JSON.'] });
  });
});

describe('seeded faults on imports', () => {
  it('bulkFailRate 1: every import stops part-way with status "failed" and finished_at set; the rows before the stop stay applied', async () => {
    const s = await sandbox({ bulkRowsPerS: 0, bulkFailRate: 1, seed: 7 });
    const rows = Array.from({ length: 40 }, (_, i) => `C-${i}`).join('\n');
    const status = await importAndWait(s, 'users', `custom_id\n${rows}\n`);
    expect(status.status).toBe('failed');
    expect(status.finished_at).not.toBeNull();
    expect(status.total_count).toBe(40);
    expect(status.succeeded).toBeLessThan(40);
    expect(s.state.users()).toHaveLength(status.succeeded);
  });

  it('bulkFailRate is seeded: the same seed fails the same imports at the same row', async () => {
    const runs: [string, number][][] = [];
    for (const seed of [3, 3]) {
      const s = await sandbox({ bulkRowsPerS: 0, bulkFailRate: 0.5, seed });
      const run: [string, number][] = [];
      for (let i = 0; i < 8; i++) {
        const status = await importAndWait(
          s,
          'users',
          `custom_id\n${Array.from({ length: 20 }, (_, k) => `C-${i}-${k}`).join('\n')}\n`,
        );
        run.push([status.status, status.succeeded]);
      }
      runs.push(run);
    }
    expect(runs[1]).toEqual(runs[0]);
    expect(new Set(runs[0]!.map(([status]) => status))).toEqual(new Set(['finished', 'failed']));
  });

  it('--fail-rate applies to uploads: 500 before (no import) or after (the import exists and runs); the status call too', async () => {
    const s = await sandbox({ bulkRowsPerS: 0, failRate: 1, seed: 1 });
    const outcomes: [number, boolean][] = [];
    for (let i = 0; i < 12; i++) {
      const before = s.state.imports.list().length;
      const res = await upload(s, 'users', `custom_id\nC-${i}\n`);
      outcomes.push([res.status, s.state.imports.list().length > before]);
    }
    expect(new Set(outcomes.map(([status]) => status))).toEqual(new Set([500]));
    expect(outcomes.some(([, created]) => created)).toBe(true);
    expect(outcomes.some(([, created]) => !created)).toBe(true);
    for (const record of s.state.imports.list()) await settle(s, record.id);
    expect(s.state.users()).toHaveLength(s.state.imports.list().length);
    expect((await s.call('GET', 'import/status/')).status).toBe(500);
  });

  it('--drop-rate 1: the import is created, the connection closed without an answer', async () => {
    const s = await sandbox({ bulkRowsPerS: 0, dropRate: 1 });
    await expect(upload(s, 'users', 'custom_id\nC-1\n')).rejects.toThrow();
    expect(s.state.imports.list()).toHaveLength(1);
    expect(s.requests[0]).toMatchObject({
      status: null,
      applied: true,
      fault: 'drop',
      importId: s.state.imports.list()[0]!.id,
    });
  });
});

describe('the request log of an import', () => {
  it('the upload is one entry (its importId, the form fields, the file size and rows, never its content); each row an IMPORT entry', async () => {
    const s = await sandbox({ bulkRowsPerS: 0 });
    const csv = 'custom_id,email\nC-1,a@example.com\nC-2,nope\n';
    const status = await importAndWait(s, 'users', csv, { fields: { tags: 'x' } });
    const [uploadEntry, ...rest] = s.requests;
    expect(uploadEntry).toMatchObject({
      method: 'POST',
      path: '/api/public/users/import/',
      status: 200,
      applied: true,
      importId: status.id,
      body: { tags: 'x', input_file: { bytes: Buffer.byteLength(csv), rows: 2 } },
    });
    expect(JSON.stringify(uploadEntry)).not.toContain('a@example.com');
    expect(rest.filter((e) => e.method === 'IMPORT')).toEqual([
      expect.objectContaining({
        path: '/api/public/users/import/',
        status: 200,
        applied: true,
        body: { custom_id: 'C-1', email: 'a@example.com' },
        importId: status.id,
        row: 2,
      }),
      expect.objectContaining({
        status: 400,
        applied: false,
        body: { custom_id: 'C-2', email: 'nope' },
        importId: status.id,
        row: 3,
      }),
    ]);
  });

  it('a test counts how many times a row took effect, per row or by import, with one filter', async () => {
    const s = await sandbox({ bulkRowsPerS: 0 });
    await s.call('POST', 'users/update_or_create/', { custom_id: 'C-1' });
    await importAndWait(s, 'users', 'custom_id\nC-1\nC-2\n');
    const applied = (id: string) =>
      s.requests.filter((e) => e.applied && (e.body as { custom_id?: string } | null)?.custom_id === id).length;
    expect([applied('C-1'), applied('C-2')]).toEqual([2, 1]);
  });
});

describe('reset', () => {
  it('POST /__sandbox/reset forgets the imports and stops one that is running', async () => {
    const waiting: (() => void)[] = [];
    const s = await sandbox({ bulkRowsPerS: 1, sleep: () => new Promise<void>((r) => waiting.push(r)) });
    const id = (await upload(s, 'users', 'custom_id\nC-1\nC-2\nC-3\n')).body.data.import_id;
    await new Promise((r) => setImmediate(r));
    expect(s.state.users()).toHaveLength(1);
    await s.admin('POST', 'reset');
    for (const wake of waiting.splice(0)) wake();
    await new Promise((r) => setImmediate(r));
    expect(s.state.users()).toEqual([]);
    expect((await s.call('GET', `import/status/?import_id=${id}`)).status).toBe(404);
  });
});
