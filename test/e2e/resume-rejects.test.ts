/**
 * The rejects file of a resumed run replaces the killed run's: it must hold the rows the API
 * refused before the stop too, which the resume answers from the ledger without sending them.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startSandbox, type Sandbox } from '../../src/sandbox/index.js';
import { runCli } from '../helpers/run-cli.js';
import { tmpTree } from '../helpers/tmp.js';

let sandbox: Sandbox | undefined;
afterEach(async () => {
  await sandbox?.close();
  sandbox = undefined;
});

describe('resume and the rejects file', () => {
  it('keeps the rows refused before the stop', async () => {
    // shoe_size is no custom attribute of the account: the API refuses the rows that set it.
    sandbox = await startSandbox({ rate: 0, latencyMs: 30, fixtures: { userAttributes: ['tier'] } });
    const env = { ENGAGE_API_KEY: sandbox.apiKey, ENGAGE_BASE_URL: sandbox.url };
    // C-1 is refused before the stop, C-6 after it, by the resume.
    const rows = Array.from({ length: 8 }, (_, i) => `C-${i},${i === 1 || i === 6 ? '42' : ''}`);
    const dir = tmpTree({
      'contacts.csv': `custom_id,shoe\n${rows.join('\n')}\n`,
      'contacts.yaml':
        'resource: user\nsource: { file: contacts.csv }\nkey: custom_id\nfields: { custom_id: custom_id, shoe_size: shoe }\n',
    });
    const common = ['--rate', '1000', '--concurrency', '1', '--bulk', 'never', '--rejects', 'rejects.csv'];
    const stop = new AbortController();
    const first = runCli(['import', 'contacts.yaml', ...common], { cwd: dir, env, signal: stop.signal });
    while (sandbox.requests.length < 3) await new Promise((r) => setTimeout(r, 5));
    stop.abort('SIGTERM');
    expect((await first).code).toBe(143);
    const resumed = await runCli(['resume', ...common], { cwd: dir, env });
    expect(resumed.code).toBe(1);
    const rejects = readFileSync(join(dir, 'rejects.csv'), 'utf8').trim().split('\n');
    expect(rejects.slice(1).map((l) => l.slice(0, 7))).toEqual(['C-1,42,', 'C-6,42,']);
  });
});
