import { appendFileSync, existsSync, mkdirSync, renameSync } from 'node:fs';
import { basename, join } from 'node:path';
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

  it('a run folder moved out of its state directory is resumed against the state beside its job', async () => {
    sandbox = await startSandbox({ rate: 0 });
    const env = { ENGAGE_API_KEY: sandbox.apiKey, ENGAGE_BASE_URL: sandbox.url };
    const dir = eventsJob(3, { incremental: true });
    expect((await runCli(['import', 'job.yaml', '--rate', '1000'], { cwd: dir, env })).code).toBe(0);
    expect(sandbox.requests).toHaveLength(6);
    const stopped = await runCli(['import', 'job.yaml'], { cwd: dir, env, signal: AbortSignal.abort('SIGTERM') });
    expect(stopped.code).toBe(143);
    const runDir = /resume with: engage-import resume (\S+)/.exec(stopped.stderr)![1]!;
    // Parked, as the refusal of the next night offers ("move that folder away").
    const parked = join(dir, 'parked', 'old-runs');
    mkdirSync(parked, { recursive: true });
    const to = join(parked, basename(runDir));
    renameSync(join(dir, runDir), to);
    const resumed = await runCli(['resume', to, '--rate', '1000'], { cwd: dir, env });
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(resumed.stderr).toContain('unchanged 3, already_sent 3');
    // Naming the job's state directory is the same, not refused.
    const again = await runCli(['resume', to, '--state-dir', '.engage-import', '--resend-unknown'], { cwd: dir, env });
    expect(again.code, again.stderr).toBe(0);
    expect(sandbox.requests).toHaveLength(6);
    expect(existsSync(join(dir, 'parked', 'sync'))).toBe(false);
  });

  it("holds the job's state directory while it resumes a parked run: the next night sends no event twice", async () => {
    // Every answer takes 20 ms: the resume of 20 new events is still sending when the night starts.
    sandbox = await startSandbox({ rate: 0, latencyMs: 20 });
    const env = { ENGAGE_API_KEY: sandbox.apiKey, ENGAGE_BASE_URL: sandbox.url };
    const dir = eventsJob(3, { incremental: true });
    expect((await runCli(['import', 'job.yaml', '--rate', '1000'], { cwd: dir, env })).code).toBe(0);
    for (let i = 100; i < 120; i++) appendFileSync(join(dir, 'events.csv'), `E${i},0\n`);
    const stopped = await runCli(['import', 'job.yaml'], { cwd: dir, env, signal: AbortSignal.abort('SIGTERM') });
    const runDir = /resume with: engage-import resume (\S+)/.exec(stopped.stderr)![1]!;
    const parked = join(dir, 'parked', 'old-runs');
    mkdirSync(parked, { recursive: true });
    const to = join(parked, basename(runDir));
    renameSync(join(dir, runDir), to);
    const before = sandbox.requests.length;
    const events = () => sandbox!.requests.slice(before).filter((q) => q.path.endsWith('/events/'));

    const resumed = runCli(['resume', to, '--rate', '1000', '--concurrency', '1'], { cwd: dir, env });
    while (events().length === 0) await new Promise((r) => setTimeout(r, 5));
    const night = await runCli(['import', 'job.yaml', '--rate', '1000', '--report', 'night.csv'], { cwd: dir, env });
    expect((await resumed).code).toBe(0);
    expect(events()).toHaveLength(20);
    // The night waited for the resume, then found every event sent.
    expect(night.code, night.stderr).toBe(0);
    expect(night.stderr).toContain('in use by another engage-import process');
    expect(night.stderr).toContain('already_sent 23');
  });
});
