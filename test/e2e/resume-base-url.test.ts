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

describe('the resume command a stop prints', () => {
  it('runs as printed, without the base URL: the run goes on against its own', async () => {
    sandbox = await startSandbox({ rate: 0 });
    const dir = eventsJob(4);
    // A cron line's dated report: the printed command keeps it.
    const stopped = await runCli(['import', 'job.yaml', '--report', 'night-1.csv'], {
      cwd: dir,
      env: { ENGAGE_API_KEY: sandbox.apiKey, ENGAGE_BASE_URL: sandbox.url },
      signal: AbortSignal.abort('SIGTERM'),
    });
    expect(stopped.code).toBe(143);
    const printed = /resume with: (engage-import resume \S+ --report night-1\.csv)/.exec(stopped.stderr)?.[1];
    expect(printed, stopped.stderr).toBeDefined();
    // Only the key in the environment, as the stop's hint assumes.
    const resumed = await runCli([...printed!.split(' ').slice(1), '--rate', '1000'], {
      cwd: dir,
      env: { ENGAGE_API_KEY: sandbox.apiKey },
    });
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(resumed.stderr).toContain(
      `engage-import: resuming against ${new URL(sandbox.url).origin}, the run's base URL`,
    );
    expect(readReport(dir, 'night-1.csv').map((l) => l['status'])).toEqual(Array(7).fill('ok'));
    // Again, for a batch job reading --json: nothing to do, said on stdout too.
    const again = await runCli([...printed!.split(' ').slice(1), '--json'], {
      cwd: dir,
      env: { ENGAGE_API_KEY: sandbox.apiKey },
    });
    expect(again.code).toBe(0);
    expect(JSON.parse(again.stdout)).toMatchObject({ outcome: 'nothing_to_resume', exit_code: 0 });
  });

  it('a resume refused for its own command line (--report out/) says what to mend, not "the run stopped unfinished, resume with" that same mistake', async () => {
    sandbox = await startSandbox({ rate: 0 });
    const dir = eventsJob(6);
    const env = { ENGAGE_API_KEY: sandbox.apiKey, ENGAGE_BASE_URL: sandbox.url };
    const controller = new AbortController();
    const timer = setInterval(() => sandbox!.requests.length > 0 && controller.abort('SIGTERM'), 1);
    const stopped = await runCli(['import', 'job.yaml', '--rate', '2', '--concurrency', '1'], {
      cwd: dir,
      env,
      signal: controller.signal,
    }).finally(() => clearInterval(timer));
    expect(stopped.code).toBe(143);
    expect(readReport(dir).filter((l) => l['status'] === 'ok').length).toBeGreaterThan(0);
    const refused = await runCli(['resume', '--report', 'out/', '--json', '--log-format', 'json'], { cwd: dir, env });
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('--report out/ is a folder');
    expect(refused.stderr).not.toContain('the run stopped unfinished');
    // Its log end says what --json says: refused, nothing sent.
    expect(JSON.parse(refused.stdout)).toMatchObject({ outcome: 'refused' });
    const end = refused.stderr
      .split('\n')
      .filter((l) => l.startsWith('{'))
      .map((l) => JSON.parse(l) as Record<string, unknown>)
      .find((l) => l['event'] === 'run_end');
    expect(end).toMatchObject({ outcome: 'refused', exit_code: 2 });
  });
});
