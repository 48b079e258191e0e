import { appendFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startSandbox, type Sandbox } from '../../src/sandbox/index.js';
import { eventsJob } from '../helpers/events-job.js';
import { runCli } from '../helpers/run-cli.js';
import { tmpTree } from '../helpers/tmp.js';

let sandbox: Sandbox | undefined;
afterEach(async () => {
  await sandbox?.close();
  sandbox = undefined;
});

/**
 * A cron line runs `import /jobs/job.yaml` from another folder: the state directory sits beside
 * the job. When a night stops, the notice names `engage-import resume <run folder>`, which the
 * operator runs from wherever they are.
 */
describe('resume <run folder> from another working directory', () => {
  async function stoppedNight() {
    sandbox = await startSandbox({ rate: 0 });
    const env = { ENGAGE_API_KEY: sandbox.apiKey, ENGAGE_BASE_URL: sandbox.url };
    const dir = eventsJob(5, { incremental: true });
    const elsewhere = tmpTree({});
    const night1 = await runCli(['import', join(dir, 'job.yaml'), '--rate', '1000'], { cwd: elsewhere, env });
    expect(night1.code).toBe(0);
    expect(sandbox.requests).toHaveLength(8); // 3 contacts, 5 events
    appendFileSync(join(dir, 'events.csv'), 'E100,0\n');
    const signal = AbortSignal.abort('SIGINT');
    const stopped = await runCli(['import', join(dir, 'job.yaml'), '--rate', '1000'], { cwd: elsewhere, env, signal });
    expect(stopped.code).toBe(130);
    const runDir = /resume with: engage-import resume (\S+)/.exec(stopped.stderr)?.[1];
    expect(runDir).toBeDefined();
    return { env, dir, elsewhere, runDir: runDir! };
  }

  it("compares the rows with the run's own sync state: only the new event is sent", async () => {
    const { env, elsewhere, runDir } = await stoppedNight();
    const resumed = await runCli(['resume', runDir, '--rate', '1000'], { cwd: elsewhere, env });
    expect(resumed.code).toBe(0);
    expect(sandbox!.requests.slice(8).map((q) => `${q.method} ${q.path}`)).toEqual([
      'POST /api/public/users-by-id/0/events/',
    ]);
    expect(resumed.stderr).toContain('already_sent 5');
    // Nothing was created where the command ran.
    expect(existsSync(join(elsewhere, '.engage-import'))).toBe(false);
  });

  it('refuses a --state-dir that is not the one holding the run, and sends nothing', async () => {
    const { env, elsewhere, runDir } = await stoppedNight();
    const resumed = await runCli(['resume', runDir, '--state-dir', 'other', '--rate', '1000'], {
      cwd: elsewhere,
      env,
    });
    expect(resumed.code).toBe(2);
    expect(resumed.stderr).toMatch(/belongs to the state directory \S+, not to --state-dir other/);
    expect(sandbox!.requests).toHaveLength(8);
  });
});
