import { cpSync, readdirSync, renameSync, rmSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startSandbox, type Sandbox } from '../../src/sandbox/index.js';
import { eventsJob } from '../helpers/events-job.js';
import { runCli } from '../helpers/run-cli.js';
import { exited, spawnCli } from '../helpers/spawn-cli.js';
import { tmpTree } from '../helpers/tmp.js';

let sandbox: Sandbox | undefined;
afterEach(async () => {
  await sandbox?.close();
  sandbox = undefined;
});

const stateFiles = (dir: string) =>
  readdirSync(join(dir, '.engage-import', 'sync')).filter((f) => f.endsWith('.sqlite'));

/** A job folder renamed (a redeploy to another path) with its state directory beside the job file. */
describe('a job that moved, its state directory with it', () => {
  it('is refused, preview and live, until its state is carried over as the message says; then nothing is sent twice', async () => {
    sandbox = await startSandbox({ rate: 0 });
    const env = { ENGAGE_API_KEY: sandbox.apiKey, ENGAGE_BASE_URL: sandbox.url };
    const before = eventsJob(3, { incremental: true });
    expect((await runCli(['import', 'job.yaml', '--rate', '1000'], { cwd: before, env })).code).toBe(0);
    expect(sandbox.requests).toHaveLength(6);
    const after = join(tmpTree(), 'moved');
    renameSync(before, after);

    const refusal = `.engage-import holds the sync state of ${join(before, 'job.yaml')}, a job of the same name at a path that no longer exists, and none for job.yaml; nothing was sent. If this job moved from there, carry its state over`;
    const preview = await runCli(['validate', 'job.yaml', '--report', 'preview.csv'], { cwd: after, env });
    expect(preview.code).toBe(2);
    expect(preview.stderr).toContain(refusal);
    const refused = await runCli(['import', 'job.yaml', '--rate', '1000'], { cwd: after, env });
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain(refusal);
    expect(sandbox.requests).toHaveLength(6);

    // The two commands the message gives, as it gives them.
    const commands =
      /carry its state over \([^)]*\): (engage-import state export .*?) && (engage-import state import .*?) \(/.exec(
        refused.stderr,
      );
    expect(commands).not.toBeNull();
    for (const command of commands!.slice(1, 3)) {
      const r = await runCli(command.split(' ').slice(1), { cwd: after, env });
      expect(r.code, `${command}: ${r.stderr}`).toBe(0);
    }

    const night2 = await runCli(['import', 'job.yaml', '--rate', '1000'], { cwd: after, env });
    expect(night2.code).toBe(0);
    expect(night2.stderr).toContain('already_sent 3');
    expect(sandbox.requests).toHaveLength(6);
  });

  it('a copy whose original is still there is another job: neither is refused, the original keeps its state', async () => {
    sandbox = await startSandbox({ rate: 0 });
    const env = { ENGAGE_API_KEY: sandbox.apiKey, ENGAGE_BASE_URL: sandbox.url };
    const original = eventsJob(3, { incremental: true });
    expect((await runCli(['import', 'job.yaml', '--rate', '1000'], { cwd: original, env })).code).toBe(0);
    const copy = join(tmpTree(), 'copy');
    cpSync(original, copy, { recursive: true });
    const copied = await runCli(['import', 'job.yaml', '--rate', '1000'], { cwd: copy, env });
    expect(copied.code).toBe(0);
    expect(stateFiles(copy)).toHaveLength(2);
    const again = await runCli(['import', 'job.yaml', '--rate', '1000'], { cwd: original, env });
    expect(again.code).toBe(0);
    expect(again.stderr).toContain('already_sent 3');
  });
});

/** One job folder reached by two paths: cron names a link (`job-link -> job`), a person the folder. */
describe('a job reached through a link to its folder', () => {
  it('is refused by the path its state was not recorded under, preview and live: nothing is sent twice', async () => {
    sandbox = await startSandbox({ rate: 0 });
    const env = { ENGAGE_API_KEY: sandbox.apiKey, ENGAGE_BASE_URL: sandbox.url };
    const job = eventsJob(3, { incremental: true });
    expect((await runCli(['import', 'job.yaml', '--rate', '1000'], { cwd: job, env })).code).toBe(0);
    expect(sandbox.requests).toHaveLength(6);
    const link = join(tmpTree(), 'job-link');
    symlinkSync(job, link);

    const refusal = `.engage-import holds the sync state of ${join(job, 'job.yaml')}, which is this same job file (job.yaml) reached by another path; nothing was sent. Name the job by that path`;
    const preview = await runCli(['validate', 'job.yaml', '--report', 'preview.csv'], { cwd: link, env });
    expect(preview.code).toBe(2);
    expect(preview.stderr).toContain(refusal);
    const refused = await runCli(['import', 'job.yaml', '--rate', '1000'], { cwd: link, env });
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain(refusal);
    expect(sandbox.requests).toHaveLength(6);
    expect(stateFiles(job)).toHaveLength(1);

    // By its own path, the next night sends nothing again.
    const night2 = await runCli(['import', 'job.yaml', '--rate', '1000'], { cwd: job, env });
    expect(night2.code).toBe(0);
    expect(night2.stderr).toContain('already_sent 3');
    expect(sandbox.requests).toHaveLength(6);

    // To go by the link's path from now on: the commands the refusal gives, as it gives them.
    const how =
      /carry the state over \([^)]*\): (engage-import state export .*?) && (engage-import state import .*?), then delete (\S+) and/.exec(
        refused.stderr,
      );
    expect(how).not.toBeNull();
    for (const command of how!.slice(1, 3)) {
      const r = await runCli(command.split(' ').slice(1), { cwd: link, env });
      expect(r.code, `${command}: ${r.stderr}`).toBe(0);
    }
    rmSync(join(link, how![3]!));
    const night3 = await runCli(['import', 'job.yaml', '--rate', '1000'], { cwd: link, env });
    expect(night3.code, night3.stderr).toBe(0);
    expect(night3.stderr).toContain('already_sent 3');
    expect(sandbox.requests).toHaveLength(6);
  });
});

/**
 * A redeploy by link (`current -> releases/N`), the state kept in a shared folder, the job run as
 * cron runs it: `cd current && engage-import import job.yaml`. The CLI in its own process, so the
 * working folder is the physical one, and `$PWD` the shell's name for it.
 */
describe('a job run from a release folder reached through a `current` link', () => {
  it('is the same job after a redeploy: the next night sends no event again', async () => {
    sandbox = await startSandbox({ rate: 0 });
    const root = tmpTree();
    const release = (n: number) => join(root, 'releases', String(n));
    cpSync(eventsJob(3, { incremental: true }), release(1), { recursive: true });
    const current = join(root, 'current');
    symlinkSync(release(1), current);
    const night = async () => {
      const child = spawnCli(['import', 'job.yaml', '--rate', '1000', '--state-dir', join(root, 'shared-state')], {
        cwd: current,
        env: { ...process.env, PWD: current, ENGAGE_API_KEY: sandbox!.apiKey, ENGAGE_BASE_URL: sandbox!.url },
      });
      return exited(child);
    };
    expect(await night()).toBe(0);
    expect(sandbox.requests.filter((q) => q.path.includes('/events/'))).toHaveLength(3);
    // The deploy: a new release folder (a copy), `current` moved to it, the old release kept.
    cpSync(release(1), release(2), { recursive: true });
    rmSync(current);
    symlinkSync(release(2), current);
    expect(await night()).toBe(0);
    expect(sandbox.requests.filter((q) => q.path.includes('/events/'))).toHaveLength(3);
  }, 30_000);
});
