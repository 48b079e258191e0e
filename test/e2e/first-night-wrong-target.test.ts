import { afterEach, describe, expect, it } from 'vitest';
import { startSandbox, type Sandbox } from '../../src/sandbox/index.js';
import { eventsJob } from '../helpers/events-job.js';
import { closedPort } from '../helpers/closed-port.js';
import { readReport } from '../helpers/read-report.js';
import { runCli } from '../helpers/run-cli.js';
import { fakeClock } from '../transport/_fake-clock.js';

let sandbox: Sandbox | undefined;
afterEach(async () => {
  await sandbox?.close();
  sandbox = undefined;
});

const statuses = (dir: string) => readReport(dir).map((r) => r['status']);

/**
 * A job's first night against a mistyped key or an unreachable base URL records the target in the
 * job's new sync state, and no row. The corrected command line must not be refused for it.
 */
describe("a first night that reached no account does not tie the job's state to it", () => {
  it('a 401 on the first request: the resume with the right key sends every row, and the next night skips them', async () => {
    sandbox = await startSandbox({ rate: 0 });
    const dir = eventsJob(3, { incremental: true });
    const right = { ENGAGE_API_KEY: sandbox.apiKey, ENGAGE_BASE_URL: sandbox.url };
    const wrongKey = await runCli(['import', 'job.yaml', '--rate', '1000'], {
      cwd: dir,
      env: { ...right, ENGAGE_API_KEY: 'x'.repeat(64) },
    });
    expect(wrongKey.code).toBe(3);
    const resumed = await runCli(['resume', '--rate', '1000'], { cwd: dir, env: right });
    expect(resumed.code).toBe(0);
    expect(statuses(dir)).toEqual(Array(6).fill('ok'));
    const accepted = sandbox.requests.filter((q) => q.status !== 401).length;
    expect(accepted).toBe(6);
    const next = await runCli(['import', 'job.yaml', '--rate', '1000'], { cwd: dir, env: right });
    expect(next.code).toBe(0);
    expect(statuses(dir)).toEqual([...Array(3).fill('unchanged'), ...Array(3).fill('already_sent')]);
    expect(sandbox.requests.filter((q) => q.status !== 401)).toHaveLength(accepted);
  });

  it('a base URL that never answered: the next run at the right one sends every row', async () => {
    const port = await closedPort();
    const dir = eventsJob(3, { incremental: true });
    sandbox = await startSandbox({ rate: 0 });
    const nowhere = await runCli(['import', 'job.yaml', '--rate', '1000'], {
      cwd: dir,
      env: { ENGAGE_API_KEY: sandbox.apiKey, ENGAGE_BASE_URL: `http://127.0.0.1:${port}/api/public/` },
      clock: fakeClock(),
    });
    expect(statuses(dir)).toEqual(Array(6).fill('not_sent'));
    const env = { ENGAGE_API_KEY: sandbox.apiKey, ENGAGE_BASE_URL: sandbox.url };
    // Its rows are not_sent: the run stopped (exit 3), stays resumable, and may go on at the right URL.
    expect(nowhere.code).toBe(3);
    const next = await runCli(['resume', '--rate', '1000'], { cwd: dir, env });
    expect(next.stderr).not.toContain('records what was sent with');
    expect(next.code).toBe(0);
    expect(statuses(dir)).toEqual(Array(6).fill('ok'));
    expect(sandbox.requests).toHaveLength(6);
  });
});
