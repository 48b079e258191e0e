import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createRunClassifier } from '../../src/sync/sync-preview.js';
import { requestHash } from '../../src/sync/request-hash.js';
import { loadMapping } from '../helpers/load-mapping.js';
import { tmpTree } from '../helpers/tmp.js';
import { fakeFeed, tempState } from './_feed.js';

let cleanups: (() => void)[] = [];
afterEach(() => {
  for (const c of cleanups) c();
  cleanups = [];
});

const product = (sku: string, name: string, line: number) => {
  const payload = { custom_id: sku, name };
  return { line, payload, fields: [sku, name], call: { method: 'POST', path: 'products/', body: payload } };
};

describe('SourceClassifier.updates: rows a products stage would send to a product the account has', () => {
  it('counts changed rows (and unchanged ones a full refresh resends), and decides nothing for classify', async () => {
    const t = tempState();
    cleanups.push(t.cleanup);
    const accepted = (sku: string, name: string) => ({
      resource: 'product' as const,
      kind: 'entity' as const,
      key: `custom_id=${sku}`,
      hash: requestHash(product(sku, name, 1).call),
    });
    t.state.apply(fakeFeed('r1', [accepted('P-1', 'Mug'), accepted('P-2', 'Cup')]));
    const mapping = await loadMapping(
      join(
        tmpTree({
          'p.yaml': 'resource: product\nsource: { file: p.csv }\nkey: sku\nfields: { custom_id: sku, name: name }\n',
        }),
        'p.yaml',
      ),
    );
    const rows = [product('P-1', 'Mug', 2), product('P-2', 'Big cup', 3), product('P-3', 'Plate', 4)];
    for (const [mode, updates] of [
      ['incremental', 1],
      ['full-refresh', 2],
    ] as const) {
      const classifier = createRunClassifier({ state: t.state, mode });
      const source = classifier.forSource(0, mapping, ['sku', 'name'], 'p.csv');
      expect(source.updates(rows)).toBe(updates);
      // Asking changed nothing: the run's classification and its counts are as without it.
      expect(source.classify(rows).map((c) => c.status)).toEqual(['unchanged', 'changed', 'new']);
      expect(classifier.notes()).toEqual([]);
      classifier.close();
    }
  });
});
