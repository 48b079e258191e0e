/** The summary line of a bulk stage says what the service took: rows, imports and requests of this command. */
import { afterEach, describe, expect, it } from 'vitest';
import type { Sandbox } from '../../src/sandbox/index.js';
import { importOnNewSandbox, requestPaths } from '../helpers/import-on-sandbox.js';
import { tmpTree } from '../helpers/tmp.js';

const sandboxes: Sandbox[] = [];
afterEach(async () => {
  for (const s of sandboxes.splice(0)) await s.close();
});

describe('bulk imports: the summary line of a stage stopped by --bulk-timeout', () => {
  it('counts the rows the service took, not those written to chunks that never went', async () => {
    const lines = ['customer_id,first_name', ...Array.from({ length: 30 }, (_, i) => `C-${i},First ${i}`)];
    const dir = tmpTree({
      'contacts.csv': `${lines.join('\n')}\n`,
      'contacts.yaml':
        'resource: user\nsource: { file: contacts.csv }\nkey: customer_id\nfields:\n  custom_id: { column: customer_id, required: true }\n  first_name: first_name\n',
      'job.yaml': 'mappings: [contacts.yaml]\n',
    });
    // One row a second at the service: the first import outlives the 0.6 s wait (on fake time).
    const r = await importOnNewSandbox(dir, ['--bulk', 'always', '--bulk-chunk-rows', '10', '--bulk-timeout', '0.01'], {
      opened: sandboxes,
      sandbox: { bulkRowsPerS: 1 },
    });
    expect(r.code).toBe(3);
    expect(requestPaths(r.sandbox).filter((p) => p === 'POST users/import/')).toHaveLength(1);
    expect(r.stderr).toMatch(/bulk: 10 of 30 rows in 1 import, unknown 10, not_sent 20/);
  });
});
