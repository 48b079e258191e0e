import { describe, expect, it } from 'vitest';
import { FailedParents } from '../../src/pipeline/failed-parents.js';

describe('FailedParents', () => {
  it('names the failed parent and where it failed', () => {
    const p = new FailedParents();
    p.fail([{ kind: 'user', by: 'custom_id', value: 'C-17' }], { file: 'contacts.csv', line: 18, how: 'failed' });
    expect(p.blockedBy([{ kind: 'user', by: 'custom_id', value: 'C-17' }])).toBe(
      "depends on user custom_id 'C-17', which failed at contacts.csv line 18",
    );
    expect(p.blockedBy([{ kind: 'user', by: 'custom_id', value: 'C-18' }])).toBeUndefined();
    expect(p.blockedBy([{ kind: 'user', by: 'id', value: 'C-17' }])).toBeUndefined();
  });

  it.each([
    ['invalid', 'was invalid'],
    ['skipped', 'was skipped'],
  ])('says when the parent %s', (how, words) => {
    const p = new FailedParents();
    p.fail([{ kind: 'product', by: 'custom_id', value: 'SKU/1' }], { file: 'products.csv', line: 3, how });
    expect(p.blockedBy([{ kind: 'product', by: 'custom_id', value: 'SKU/1' }])).toBe(
      `depends on product custom_id 'SKU/1', which ${words} at products.csv line 3`,
    );
  });

  it('forgets a failure once a later row creates the same entity', () => {
    const p = new FailedParents();
    const ref = { kind: 'user', by: 'custom_id', value: 'C-1' } as const;
    p.fail([ref], { file: 'a.csv', line: 2, how: 'failed' });
    p.succeed([ref]);
    expect(p.blockedBy([ref])).toBeUndefined();
    expect(p.size).toBe(0);
  });
});
