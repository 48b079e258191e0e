import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { ResolvedMapping } from '../../src/config/mapping-schema.js';
import { estimateBulk } from '../../src/pipeline/bulk-estimate.js';
import { DEFAULT_BULK, type BulkOptions } from '../../src/pipeline/bulk-options.js';
import { newFileSummary } from '../../src/report/summary.js';
import { loadMapping } from '../helpers/load-mapping.js';
import { tmpTree } from '../helpers/tmp.js';

const load = (yaml: string) => loadMapping(join(tmpTree({ 'm.yaml': yaml }), 'm.yaml'));
const CONTACTS = 'resource: user\nsource: { file: c.csv }\nkey: id\nfields: { custom_id: id, email: email }\n';
const PRODUCTS = 'resource: product\nsource: { file: p.csv }\nkey: sku\nfields: { custom_id: sku, name: name }\n';
const DEALS =
  'resource: deal\noperation: create\nsource: { file: d.csv }\nkey: id\nfields: { name: name, pipeline_id: { column: p, type: integer }, deal_stage_id: { column: s, type: integer } }\n';
const EVENTS =
  'resource: event\nsource: { file: e.csv }\nkey: id\nfields: { user_custom_id: u, name: n, timestamp: { column: t, type: unix } }\n';

/**
 * A dry run's file summary with `toSend` rows to send (`changed` of them updates) of `valid` valid
 * rows (the others unchanged; default: all are sent).
 */
function estimated(
  mapping: ResolvedMapping,
  toSend: number,
  options: BulkOptions | undefined,
  changed = 0,
  valid = toSend,
) {
  const summary = newFileSummary('f.csv', mapping.resource);
  summary.requests = toSend;
  summary.counts.changed = changed;
  summary.counts.new = toSend - changed;
  summary.counts.unchanged = valid - toSend;
  estimateBulk(summary, mapping, options);
  return { requests: summary.requests, bulk: summary.bulk };
}

describe('a dry run estimates a stage the live import sends by bulk as its imports', () => {
  it('a full refresh of 5 unchanged products: updates, which only the import makes, as the live run sends them', async () => {
    const summary = newFileSummary('p.csv', 'product');
    summary.counts.unchanged = 5;
    summary.requests = 5;
    estimateBulk(summary, await load(PRODUCTS), DEFAULT_BULK);
    expect([summary.bulk?.rows, summary.bulk?.imports]).toEqual([5, 1]);
  });

  it('the stage size chooses bulk, as in the live run: 10 rows to send of 1,200 valid go in one import', async () => {
    const mapping = await load(CONTACTS);
    const chosen = estimated(mapping, 10, DEFAULT_BULK, 10, 1200);
    expect(chosen.bulk?.rows).toBe(10);
    expect(chosen.bulk?.imports).toBe(1);
    // 10 of 999 valid: below --bulk-min-rows, one request per row.
    expect(estimated(mapping, 10, DEFAULT_BULK, 10, 999)).toEqual({ requests: 10, bulk: undefined });
  });

  it('12,000 contacts: two imports of 5,000 and one of 2,000, each upload and the polls that see it end at 450 rows/s', async () => {
    // 5,000 rows end at 11.1 s, seen by the 4th poll (1, 3, 7, 11.523 s); 2,000 end at 4.4 s, seen by the 3rd (1, 3, 4.589 s).
    expect(estimated(await load(CONTACTS), 12_000, DEFAULT_BULK)).toEqual({
      requests: 5 + 5 + 4,
      bulk: { rows: 12_000, imports: 3, estimate: { seconds: 27.635, rowsPerS: 450 } },
    });
  });

  it('--bulk-chunk-rows sets the imports', async () => {
    const { bulk } = estimated(await load(CONTACTS), 12_000, { ...DEFAULT_BULK, chunkRows: 4_000 });
    expect(bulk?.imports).toBe(3);
  });

  it.each([
    ['contacts under --bulk-min-rows', CONTACTS, 999, DEFAULT_BULK, 0],
    ['contacts with --bulk never', CONTACTS, 12_000, { ...DEFAULT_BULK, mode: 'never' as const }, 0],
    ['no bulk options (the estimate of a plain per-row run)', CONTACTS, 12_000, undefined, 0],
    ['deals in auto (their importer needs bulk_header)', DEALS, 12_000, DEFAULT_BULK, 0],
    ['events (no import endpoint)', EVENTS, 12_000, { ...DEFAULT_BULK, mode: 'always' as const }, 0],
    ['nothing to send', CONTACTS, 0, DEFAULT_BULK, 0],
  ])('%s: one request per row to send, as before', async (_name, yaml, toSend, options, changed) => {
    expect(estimated(await load(yaml), toSend, options, changed)).toEqual({ requests: toSend, bulk: undefined });
  });

  it('a small products stage with a changed row goes by bulk (only the import updates a product)', async () => {
    const m = await load(PRODUCTS);
    expect(estimated(m, 10, DEFAULT_BULK, 2).bulk?.imports).toBe(1);
    expect(estimated(m, 10, DEFAULT_BULK, 0)).toEqual({ requests: 10, bulk: undefined });
  });
});
