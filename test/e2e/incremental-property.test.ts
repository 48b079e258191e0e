import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { startSandbox } from '../../src/sandbox/index.js';
import { runCli } from '../helpers/run-cli.js';
import { tmpTree } from '../helpers/tmp.js';

/**
 * Through the real live run against the sandbox: for random sequences of incremental runs over
 * random event files (events repeated across nights and within a file, a cell that changes
 * without changing the event), the events the sandbox recorded are exactly the distinct event
 * identities of all the files, each once. Few, small runs, so it stays fast.
 */
const night = fc.array(fc.record({ id: fc.integer({ min: 0, max: 7 }), note: fc.constantFrom('a', 'b') }), {
  minLength: 1,
  maxLength: 8,
});

describe('incremental runs, property: each event identity is recorded once across runs', () => {
  it('holds for random sequences of runs', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(night, { minLength: 1, maxLength: 3 }), async (nights) => {
        const sandbox = await startSandbox({ port: 0, rate: 0 });
        try {
          const dir = tmpTree();
          writeFileSync(join(dir, 'contacts.csv'), 'custom_id,email\nC-1,a@example.com\n');
          writeFileSync(
            join(dir, 'contacts.yaml'),
            'resource: user\nsource: { file: contacts.csv }\nkey: custom_id\nfields: { custom_id: custom_id, email: email }\n',
          );
          // identity: the event's id column; `note` may change between nights without making it a new event.
          writeFileSync(
            join(dir, 'events.yaml'),
            'resource: event\nsource: { file: events.csv }\nkey: id\nidentity: [id]\nfields:\n  user_custom_id: customer\n  name: event\n  data.id: id\n  data.note: note\n',
          );
          writeFileSync(join(dir, 'job.yaml'), 'sync: incremental\nmappings: [contacts.yaml, events.yaml]\n');
          for (const [n, rows] of nights.entries()) {
            writeFileSync(
              join(dir, 'events.csv'),
              ['id,customer,event,note', ...rows.map((r) => `E-${r.id},C-1,Login,${r.note}`), ''].join('\n'),
            );
            const r = await runCli(
              [
                'import',
                'job.yaml',
                '--base-url',
                sandbox.url,
                '--report',
                join(dir, `night-${n}.csv`),
                '--state-dir',
                'state',
                '--rate',
                '1000',
                '--quiet',
              ],
              { cwd: dir, env: { ENGAGE_API_KEY: sandbox.apiKey } },
            );
            expect(r.code).toBe(0);
          }
          const recorded = sandbox.requests
            .filter((q) => q.applied && q.path.endsWith('/events/'))
            .map((q) => (q.body as { data: { id: string } }).data.id);
          const distinct = new Set(nights.flat().map((r) => `E-${r.id}`));
          expect([...recorded].sort()).toEqual([...distinct].sort());
        } finally {
          await sandbox.close();
        }
      }),
      { numRuns: 8, seed: 1123 },
    );
  }, 120_000);
});
