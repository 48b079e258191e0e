import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startSandbox, type Sandbox } from '../../src/sandbox/index.js';
import { eventsJob } from '../helpers/events-job.js';
import { runCli } from '../helpers/run-cli.js';

let sandbox: Sandbox | undefined;
afterEach(async () => {
  await sandbox?.close();
  sandbox = undefined;
});

/** The event lines of an export (one per event identity it holds). */
const eventLines = (file: string) =>
  readFileSync(file, 'utf8')
    .split('\n')
    .filter((l) => l.includes('"type":"event"'));

describe('state export while a run of the job is unfinished', () => {
  it('is refused, writes nothing, and exports every event once that run is resumed', async () => {
    sandbox = await startSandbox({ rate: 0 });
    const env = { ENGAGE_API_KEY: sandbox.apiKey, ENGAGE_BASE_URL: sandbox.url };
    const dir = eventsJob(6, { incremental: true });
    const stopped = await runCli(['import', 'job.yaml'], { cwd: dir, env, signal: AbortSignal.abort('SIGTERM') });
    expect(stopped.code).toBe(143);
    const runDir = /resume with: engage-import resume (\S+)/.exec(stopped.stderr)?.[1];
    expect(runDir).toBeDefined();

    // A container restoring this export would send again what the stopped run had in flight.
    const refused = await runCli(['state', 'export', '--job', 'job.yaml', 'bucket.ndjson'], { cwd: dir, env });
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain(
      `state export: an unfinished run of this job is in ${runDir}; the rows it had in flight are not in the sync state, and a state restored from this export would send them again: resume it first ('engage-import resume ${runDir}'), then export; nothing was written`,
    );
    expect(() => readFileSync(join(dir, 'bucket.ndjson'))).toThrow(/ENOENT/);

    expect((await runCli(['resume', '--rate', '1000'], { cwd: dir, env })).code).toBe(0);
    const exported = await runCli(['state', 'export', '--job', 'job.yaml', 'bucket.ndjson'], { cwd: dir, env });
    expect(exported.code).toBe(0);
    expect(eventLines(join(dir, 'bucket.ndjson'))).toHaveLength(6);
  });
});
