import { describe, expect, it } from 'vitest';
import { EarlierSends } from '../../src/sync/earlier-sends.js';

describe('EarlierSends', () => {
  it('finds what an earlier file sends to each key, across batches; the later row of a key replaces the earlier', () => {
    const sends = new EarlierSends();
    try {
      const rows = Array.from({ length: 1_200 }, (_, i) => ({
        key: `custom_id=C-${i}`,
        hash: `h${i}`,
        source: 0,
        line: i + 2,
      }));
      sends.record('user', rows);
      sends.record('user', [{ key: 'custom_id=C-7', hash: 'again', source: 1, line: 9 }]);
      const keys = ['custom_id=C-1199', 'custom_id=nobody', 'custom_id=C-7', ...rows.slice(0, 700).map((r) => r.key)];
      const found = sends.find('user', keys);
      expect(found.slice(0, 3)).toEqual([
        { hash: 'h1199', source: 0, line: 1201 },
        undefined,
        { hash: 'again', source: 1, line: 9 },
      ]);
      expect(found[3 + 699]).toEqual({ hash: 'h699', source: 0, line: 701 });
      expect(found.filter((f) => f !== undefined)).toHaveLength(702);
      // Another resource's keys are another's.
      expect(sends.find('product', ['custom_id=C-1'])).toEqual([undefined]);
    } finally {
      sends.close();
    }
  });
});
