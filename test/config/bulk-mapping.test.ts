import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/errors.js';
import { bulkPlanOf } from '../../src/pipeline/bulk-choice.js';
import { DEFAULT_BULK } from '../../src/pipeline/bulk-options.js';
import { loadMapping } from '../helpers/load-mapping.js';
import { tmpTree } from '../helpers/tmp.js';

const DEAL = (extra: string, name = 'name: { column: title, bulk_header: Name }') => `resource: deal
operation: update_or_create
source: { file: deals.csv }
key: deal_id
${extra}
fields:
  custom_id: { column: deal_id, bulk_header: Deal Id }
  ${name}
`;

const load = (yaml: string) => loadMapping(join(tmpTree({ 'm.yaml': yaml }), 'm.yaml'));

describe('mapping bulk: and bulk_header:', () => {
  it('a deal mapping with bulk: true and a header per field goes by bulk, the importer knowing its fields by those headers', async () => {
    const m = await load(DEAL('bulk: true'));
    expect(m.bulk).toBe(true);
    const plan = bulkPlanOf(m, 1, DEFAULT_BULK);
    expect(plan?.kind).toBe('deals');
    expect(plan?.columns).toEqual([
      { field: 'custom_id', header: 'Deal Id' },
      { field: 'name', header: 'Name' },
    ]);
    expect(plan?.keyFields).toEqual(['Deal Id']);
  });

  it('bulk: true on a deal without bulk_header on a field is refused, naming the field', async () => {
    await expect(load(DEAL('bulk: true', 'name: title'))).rejects.toThrow(
      /needs `bulk_header:` on every field; missing for name/,
    );
  });

  it('two fields under one bulk_header are refused before anything is read: the upload needs a column each', async () => {
    await expect(load(DEAL('bulk: true', 'name: { column: title, bulk_header: Deal Id }'))).rejects.toThrow(
      '"Deal Id" is already the bulk_header of field "custom_id": each column of the upload needs its own',
    );
  });

  it('bulk: on events is refused: there is no import endpoint', async () => {
    await expect(
      load('resource: event\nsource: { file: e.csv }\nkey: id\nbulk: true\nfields: { user_custom_id: c, name: n }\n'),
    ).rejects.toThrow(/`bulk` applies to contacts, products and deals only/);
  });

  it('--bulk: auto sends deals per row; always without headers stops before anything is sent', async () => {
    const m = await load(DEAL('', 'name: title'));
    expect(bulkPlanOf(m, 50_000, DEFAULT_BULK)).toBeUndefined();
    expect(() => bulkPlanOf(m, 1, { ...DEFAULT_BULK, mode: 'always' })).toThrow(ConfigError);
  });

  it('contacts go by bulk from --bulk-min-rows valid rows in auto, and never with bulk: false', async () => {
    const yaml = 'resource: user\nsource: { file: c.csv }\nkey: id\nfields: { custom_id: id, email: email }\n';
    const m = await load(yaml);
    expect(bulkPlanOf(m, 999, DEFAULT_BULK)).toBeUndefined();
    expect(bulkPlanOf(m, 1000, DEFAULT_BULK)?.kind).toBe('users');
    expect(
      bulkPlanOf(await load(`${yaml}bulk: false\n`), 1_000_000, { ...DEFAULT_BULK, mode: 'always' }),
    ).toBeUndefined();
  });
});
