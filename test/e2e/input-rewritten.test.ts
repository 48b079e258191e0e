/**
 * A run reads each input twice: the validation pass, then the stage that sends it. An export job
 * that rewrites a file in between must not have the new file's rows sent under the old one's
 * line numbers: the run stops, and says which file changed.
 */
import { appendFileSync, renameSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startSandbox, type Sandbox } from '../../src/sandbox/index.js';
import { eventsJob } from '../helpers/events-job.js';
import { readReport } from '../helpers/read-report.js';
import { runCli } from '../helpers/run-cli.js';

let sandbox: Sandbox | undefined;
afterEach(async () => {
  await sandbox?.close();
  sandbox = undefined;
});

describe('an input rewritten while the run reads it', () => {
  it('stops the run before that file is sent (exit 3), naming the file', async () => {
    // Each answer takes 50 ms: the events file is rewritten while the contacts are being sent.
    sandbox = await startSandbox({ rate: 0, latencyMs: 50 });
    const env = { ENGAGE_API_KEY: sandbox.apiKey, ENGAGE_BASE_URL: sandbox.url };
    const dir = eventsJob(5);
    const run = runCli(['import', 'job.yaml', '--rate', '1000', '--concurrency', '1'], { cwd: dir, env });
    while (sandbox.requests.length === 0) await new Promise((r) => setTimeout(r, 5));
    appendFileSync(join(dir, 'events.csv'), 'E100,0\nE101,1\n');
    const r = await run;
    expect(r.code, r.stderr).toBe(3);
    expect(r.stderr).toContain('events.csv was rewritten since the validation pass read it');
    // A resume would be refused (its inputs differ from the run's): the message says what to do instead.
    const folder = /move (\S+) away and start a new run/.exec(r.stderr)?.[1];
    expect(folder).toMatch(/^\.engage-import\/runs\/\d{8}T\d{6}Z-\w+$/);
    expect(r.stderr).toContain('this run cannot be resumed with the new file');
    const events = readReport(dir).filter((l) => l['file'] === 'events.csv');
    // Read as it is now (seven rows), none sent.
    expect(events.map((l) => l['status'])).toEqual(Array(7).fill('not_sent'));
    expect(sandbox.requests.filter((q) => q.path.includes('/events/'))).toHaveLength(0);
    // As the message says: the folder moved away, a new run sends the new file.
    renameSync(join(dir, folder!), join(dir, 'parked-run'));
    const again = await runCli(['import', 'job.yaml', '--rate', '1000'], { cwd: dir, env });
    expect(again.code, again.stderr).toBe(0);
    expect(sandbox.requests.filter((q) => q.path.includes('/events/'))).toHaveLength(7);
  });
});
