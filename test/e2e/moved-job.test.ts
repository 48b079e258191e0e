import { cpSync, readdirSync, renameSync } from 'node:fs';
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

const stateFiles = (dir: string) =>
  readdirSync(join(dir, '.engage-import', 'sync')).filter((f) => f.endsWith('.sqlite'));

/** A job folder renamed (a redeploy to another path) with its state directory beside the job file. */
describe('a job that moved, its state directory with it', () => {
  it('takes its sync state along: the events it had sent are already_sent, in the preview and live', async () => {
    sandbox = await startSandbox({ rate: 0 });
    const env = { ENGAGE_API_KEY: sandbox.apiKey, ENGAGE_BASE_URL: sandbox.url };
    const before = eventsJob(3, { incremental: true });
    expect((await runCli(['import', 'job.yaml', '--rate', '1000'], { cwd: before, env })).code).toBe(0);
    expect(sandbox.requests).toHaveLength(6);
    const after = join(tmpTree(), 'moved');
    renameSync(before, after);

    const preview = await runCli(['validate', 'job.yaml', '--report', 'preview.csv'], { cwd: after, env });
    expect(preview.code).toBe(0);
    expect(preview.stderr).toContain('already_sent 3');
    const night2 = await runCli(['import', 'job.yaml', '--rate', '1000'], { cwd: after, env });
    expect(night2.code).toBe(0);
    expect(night2.stderr).toContain(
      `engage-import: this job was at ${join(before, 'job.yaml')}, which no longer exists: its sync state now belongs to job.yaml, so rows it had accepted are not sent again`,
    );
    expect(night2.stderr).toContain('already_sent 3');
    expect(sandbox.requests).toHaveLength(6);
    // One state, named after the new path: `state show` needs no --job.
    expect(stateFiles(after)).toHaveLength(1);
    expect((await runCli(['state', 'show'], { cwd: after, env })).code).toBe(0);
    const night3 = await runCli(['import', 'job.yaml', '--rate', '1000'], { cwd: after, env });
    expect(night3.stderr).not.toContain('this job was at');
    expect(sandbox.requests).toHaveLength(6);
  });

  it('a copy whose original is still there is another job: the original keeps its state', async () => {
    sandbox = await startSandbox({ rate: 0 });
    const env = { ENGAGE_API_KEY: sandbox.apiKey, ENGAGE_BASE_URL: sandbox.url };
    const original = eventsJob(3, { incremental: true });
    expect((await runCli(['import', 'job.yaml', '--rate', '1000'], { cwd: original, env })).code).toBe(0);
    const copy = join(tmpTree(), 'copy');
    cpSync(original, copy, { recursive: true });
    const copied = await runCli(['import', 'job.yaml', '--rate', '1000'], { cwd: copy, env });
    expect(copied.stderr).not.toContain('this job was at');
    expect(stateFiles(copy)).toHaveLength(2);
    const again = await runCli(['import', 'job.yaml', '--rate', '1000'], { cwd: original, env });
    expect(again.code).toBe(0);
    expect(again.stderr).toContain('already_sent 3');
  });
});
