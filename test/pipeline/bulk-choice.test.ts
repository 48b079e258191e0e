import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { bulkPlanOf, needsProductUpdates } from '../../src/pipeline/bulk-choice.js';
import { DEFAULT_BULK } from '../../src/pipeline/bulk-options.js';
import { loadMapping } from '../helpers/load-mapping.js';
import { tmpTree } from '../helpers/tmp.js';

const load = (yaml: string) => loadMapping(join(tmpTree({ 'm.yaml': yaml }), 'm.yaml'));
const PRODUCTS = 'resource: product\nsource: { file: p.csv }\nkey: sku\nfields: { custom_id: sku, name: name }\n';
const CONTACTS = 'resource: user\nsource: { file: c.csv }\nkey: id\nfields: { custom_id: id, email: email }\n';

describe('products that update what the account has go by bulk import in auto', () => {
  it('a small products stage with one changed row goes by bulk in auto; without one it goes per row', async () => {
    const m = await load(PRODUCTS);
    expect(needsProductUpdates(m, 3, DEFAULT_BULK)).toBe(true);
    expect(bulkPlanOf(m, 3, DEFAULT_BULK, 1)?.kind).toBe('products');
    expect(bulkPlanOf(m, 3, DEFAULT_BULK, 0)).toBeUndefined();
    expect(bulkPlanOf(m, 3, DEFAULT_BULK)).toBeUndefined();
  });

  it('the count is asked only when it can change the choice: auto, products, under --bulk-min-rows, no bulk: in the mapping', async () => {
    const m = await load(PRODUCTS);
    expect(needsProductUpdates(m, DEFAULT_BULK.minRows, DEFAULT_BULK)).toBe(false);
    expect(needsProductUpdates(m, 0, DEFAULT_BULK)).toBe(false);
    expect(needsProductUpdates(m, 3, { ...DEFAULT_BULK, mode: 'never' })).toBe(false);
    expect(needsProductUpdates(m, 3, { ...DEFAULT_BULK, mode: 'always' })).toBe(false);
    expect(needsProductUpdates(m, 3, undefined)).toBe(false);
    expect(needsProductUpdates(await load(`${PRODUCTS}bulk: false\n`), 3, DEFAULT_BULK)).toBe(false);
    expect(needsProductUpdates(await load(CONTACTS), 3, DEFAULT_BULK)).toBe(false);
  });

  it('--bulk never and a mapping bulk: false keep products per row, changed or not; contacts are not concerned', async () => {
    const m = await load(PRODUCTS);
    expect(bulkPlanOf(m, 3, { ...DEFAULT_BULK, mode: 'never' }, 3)).toBeUndefined();
    expect(bulkPlanOf(await load(`${PRODUCTS}bulk: false\n`), 3, DEFAULT_BULK, 3)).toBeUndefined();
    expect(bulkPlanOf(await load(CONTACTS), 3, DEFAULT_BULK, 3)).toBeUndefined();
  });
});

describe('deals go by bulk import only as update_or_create (the importer upserts by custom_id)', () => {
  const deal = (operation: string, extra = '') =>
    load(
      `resource: deal\noperation: ${operation}\nsource: { file: d.csv }\nkey: id\nfields:\n  custom_id: { column: id, bulk_header: Deal Id }\n  name: { column: name, bulk_header: Name }\n${extra}`,
    );

  it('--bulk always sends update_or_create deals by bulk, and creates and updates by id per row', async () => {
    const always = { ...DEFAULT_BULK, mode: 'always' as const };
    expect(bulkPlanOf(await deal('update_or_create'), 5_000, always)?.kind).toBe('deals');
    expect(bulkPlanOf(await deal('create'), 5_000, always)).toBeUndefined();
    expect(bulkPlanOf(await deal('update'), 5_000, always)).toBeUndefined();
  });

  it('a mapping that asks bulk: true for a create or an update by id is refused when it loads, and says why', async () => {
    for (const operation of ['create', 'update'])
      await expect(deal(operation, 'bulk: true\n')).rejects.toThrow(
        `\`bulk: true\` needs operation update_or_create: the deal importer creates or updates deals by custom_id, which is not what operation ${operation} does`,
      );
  });
});
