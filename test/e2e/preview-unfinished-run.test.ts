import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { acquireLock } from '../../src/ledger/index.js';
import { startSandbox, type Sandbox } from '../../src/sandbox/index.js';
import { eventsJob } from '../helpers/events-job.js';
import { runCli } from '../helpers/run-cli.js';

let sandbox: Sandbox | undefined;
afterEach(async () => {
  await sandbox?.close();
  sandbox = undefined;
});

describe('the preview of a job whose last run did not finish', () => {
  it('says the next import is refused until that run is resumed, and names the command', async () => {
    sandbox = await startSandbox({ rate: 0 });
    const env = { ENGAGE_API_KEY: sandbox.apiKey, ENGAGE_BASE_URL: sandbox.url };
    const dir = eventsJob(3, { incremental: true });
    const preview = () => runCli(['validate', 'job.yaml', '--report', 'preview.csv'], { cwd: dir, env });
    expect((await preview()).stderr).not.toContain('unfinished run');
    const stopped = await runCli(['import', 'job.yaml'], { cwd: dir, env, signal: AbortSignal.abort('SIGTERM') });
    expect(stopped.code).toBe(143);
    const runDir = /resume with: engage-import resume (\S+)/.exec(stopped.stderr)?.[1];
    expect(runDir).toBeDefined();
    const after = await preview();
    expect(after.code).toBe(0);
    expect(after.stderr).toContain(
      `Note: an unfinished run of this job is in ${runDir}: the next import of this job is refused until it is resumed ('engage-import resume ${runDir}'), which sends that run's own rows, not this plan`,
    );
    // While a process holds the state directory, the note cannot tell whether it is that run
    // still sending or something else (another job of the folder), and says both.
    const lock = acquireLock(join(dir, '.engage-import'));
    try {
      const busy = (await preview()).stderr;
      expect(busy).toContain(
        `Note: an unfinished run of this job is in ${runDir}, and another engage-import process (pid ${process.pid} on `,
      );
      expect(busy).toContain(
        `if that process is this run, still sending, this preview compares with what it had accepted when the preview began; if not, the next import of this job is refused until it is resumed ('engage-import resume ${runDir}')`,
      );
      expect(busy).not.toContain('in progress');
    } finally {
      lock.release();
    }
    // Resumed, the run is finished: the note is gone.
    expect((await runCli(['resume', '--rate', '1000'], { cwd: dir, env })).code).toBe(0);
    expect((await preview()).stderr).not.toContain('unfinished run');
  });
});
