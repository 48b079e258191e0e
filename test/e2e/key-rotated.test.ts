import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startSandbox, type Sandbox } from '../../src/sandbox/index.js';
import { eventsJob } from '../helpers/events-job.js';
import { fastClock } from '../helpers/fast-clock.js';
import { runCli } from '../helpers/run-cli.js';
import { tmpTree } from '../helpers/tmp.js';

let sandbox: Sandbox | undefined;
afterEach(async () => {
  await sandbox?.close();
  sandbox = undefined;
});

const OLD_KEY = 'a'.repeat(64);
const NEW_KEY = 'b'.repeat(64);

describe("a nightly job after the account's API key was rotated", () => {
  it('is refused, naming --key-rotated; with it the night goes on, and the state keeps the new key', async () => {
    sandbox = await startSandbox({ rate: 0, apiKey: OLD_KEY });
    const port = Number(new URL(sandbox.url).port);
    const dir = eventsJob(3, { incremental: true });
    const night = (key: string, extra: string[] = []) =>
      runCli(['import', 'job.yaml', '--rate', '1000', ...extra], {
        cwd: dir,
        env: { ENGAGE_API_KEY: key, ENGAGE_BASE_URL: sandbox!.url },
      });
    expect((await night(OLD_KEY)).code).toBe(0);

    // The same account at the same address, now answering to its new key only.
    await sandbox.close();
    sandbox = await startSandbox({ rate: 0, apiKey: NEW_KEY, port });
    const refused = await night(NEW_KEY);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain(
      "records what was sent with another API key (another account?); nothing was sent. If it is this account's key, rotated since, run again with --key-rotated",
    );
    expect(sandbox.requests).toHaveLength(0);
    // The preview says the same, and takes the same word for it (changing nothing).
    const preview = (extra: string[] = []) =>
      runCli(['validate', 'job.yaml', '--report', 'preview.csv', ...extra], {
        cwd: dir,
        env: { ENGAGE_API_KEY: NEW_KEY, ENGAGE_BASE_URL: sandbox!.url },
      });
    expect((await preview()).code).toBe(2);
    const previewed = await preview(['--key-rotated']);
    expect(previewed.code, previewed.stderr).toBe(0);
    expect(previewed.stderr).toContain('already_sent 3');

    const rotated = await night(NEW_KEY, ['--key-rotated']);
    expect(rotated.code, rotated.stderr).toBe(0);
    expect(rotated.stderr).toContain('already_sent 3');
    // One request: the new key checked (GET events/); no event sent.
    expect(sandbox.requests.map((q) => `${q.method} ${q.path}`)).toEqual(['GET /api/public/events/']);
    // The next night needs no flag: the state keeps the new key.
    expect((await night(NEW_KEY)).code).toBe(0);
  });

  it('a run stopped before the rotation resumes with the new key and --key-rotated', async () => {
    // 50 ms an answer, one at a time: stopped (SIGTERM) once two rows were sent.
    sandbox = await startSandbox({ rate: 0, apiKey: OLD_KEY, latencyMs: 50 });
    const port = Number(new URL(sandbox.url).port);
    const dir = eventsJob(3, { incremental: true });
    const stop = new AbortController();
    const watch = setInterval(() => {
      if (sandbox!.requests.length >= 2) stop.abort('SIGTERM');
    }, 2);
    const stopped = await runCli(['import', 'job.yaml', '--rate', '1000', '--concurrency', '1'], {
      cwd: dir,
      env: { ENGAGE_API_KEY: OLD_KEY, ENGAGE_BASE_URL: sandbox.url },
      signal: stop.signal,
    });
    clearInterval(watch);
    expect(stopped.code).toBe(143);
    const sentBefore = sandbox.requests.length;
    await sandbox.close();
    // A sandbox starts empty: the contacts the stopped run imported are given as fixtures.
    const users = ['0', '1', '2'].map((custom_id) => ({ custom_id }));
    sandbox = await startSandbox({ rate: 0, apiKey: NEW_KEY, port, fixtures: { users } });
    const resume = (extra: string[] = []) =>
      runCli(['resume', '--rate', '1000', ...extra], { cwd: dir, env: { ENGAGE_API_KEY: NEW_KEY } });
    const refused = await resume();
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain("if it is this account's key, rotated since, resume with --key-rotated");
    const resumed = await resume(['--key-rotated']);
    expect(resumed.code, resumed.stderr).toBe(0);
    // The new key checked once, then the rows the stopped run had not sent, and only those: 6 rows in all.
    expect(sandbox.requests.filter((q) => q.method === 'GET')).toHaveLength(1);
    expect(sentBefore + sandbox.requests.length - 1).toBe(6);
  });

  it('a --key-rotated key the API refuses (401) is refused before anything takes it: the real key goes on without the flag', async () => {
    sandbox = await startSandbox({ rate: 0, apiKey: OLD_KEY, latencyMs: 50 });
    const dir = eventsJob(3, { incremental: true });
    const run = (key: string, argv: string[], signal?: AbortSignal) =>
      runCli([...argv, '--rate', '1000', '--concurrency', '1'], {
        cwd: dir,
        env: { ENGAGE_API_KEY: key, ENGAGE_BASE_URL: sandbox!.url },
        ...(signal && { signal }),
      });
    expect((await run(OLD_KEY, ['import', 'job.yaml'])).code).toBe(0);
    // A mistyped key, given as the rotated one: refused, no run left, the state as it was.
    const runs = () => readdirSync(join(dir, '.engage-import/runs')).length;
    const before = runs();
    const refused = await run(NEW_KEY, ['import', 'job.yaml', '--key-rotated', '--full-refresh']);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain(
      '--key-rotated: the API refuses the new key (401): check ENGAGE_API_KEY or --api-key-file; nothing was sent or changed',
    );
    expect(refused.stderr).not.toContain(NEW_KEY);
    expect(runs()).toBe(before);
    const next = await run(OLD_KEY, ['import', 'job.yaml']);
    expect(next.code, next.stderr).toBe(0);
    expect(next.stderr).toContain('already_sent 3');

    // A run stopped part-way, resumed with the mistyped key: refused the same way; the real key resumes it.
    writeFileSync(join(dir, 'events.csv'), `${readFileSync(join(dir, 'events.csv'), 'utf8')}E3,0\nE4,0\nE5,0\n`);
    const stop = new AbortController();
    const posts = () => sandbox!.requests.filter((q) => q.method === 'POST').length;
    const sentSoFar = posts();
    const watch = setInterval(() => {
      if (posts() > sentSoFar) stop.abort('SIGTERM');
    }, 2);
    const stopped = await run(OLD_KEY, ['import', 'job.yaml'], stop.signal);
    clearInterval(watch);
    expect(stopped.code).toBe(143);
    expect((await run(NEW_KEY, ['resume', '--key-rotated'])).code).toBe(2);
    const resumed = await run(OLD_KEY, ['resume']);
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(posts() - sentSoFar).toBe(3);
  });

  it('an API that cannot answer the check stops the command as it would stop the run (exit 3), with no advice to resend', async () => {
    sandbox = await startSandbox({ rate: 0, apiKey: OLD_KEY });
    const dir = eventsJob(3, { incremental: true });
    const env = { ENGAGE_API_KEY: OLD_KEY, ENGAGE_BASE_URL: sandbox.url };
    expect((await runCli(['import', 'job.yaml', '--rate', '1000'], { cwd: dir, env })).code).toBe(0);
    // Every request answered 503: the check gives up after its attempts.
    sandbox.setFaults({ failRate: 1 });
    const r = await runCli(['import', 'job.yaml', '--key-rotated', '--max-attempts', '2'], {
      cwd: dir,
      env,
      clock: fastClock(),
    });
    expect(r.code).toBe(3);
    expect(r.stderr).toMatch(
      /--key-rotated: the new API key could not be checked \(GET \/api\/public\/events\/: HTTP 500/,
    );
    expect(r.stderr).toContain('nothing was sent or changed: run again once the API answers');
    expect(r.stderr).not.toContain('resend-unknown');
  });

  it('the check counts against the rate limit: the run sends its first request a second after it', async () => {
    sandbox = await startSandbox({ rate: 0, apiKey: OLD_KEY });
    const dir = tmpTree({
      'contacts.csv': `custom_id\n${Array.from({ length: 5 }, (_, i) => `C-${i}`).join('\n')}\n`,
      'job.yaml': 'resource: user\nsource: { file: contacts.csv }\nkey: custom_id\nfields: { custom_id: custom_id }\n',
    });
    const env = { ENGAGE_API_KEY: OLD_KEY, ENGAGE_BASE_URL: sandbox.url };
    const r = await runCli(['import', 'job.yaml', '--key-rotated'], { cwd: dir, env });
    expect(r.code, r.stderr).toBe(0);
    const [check, first] = sandbox.requests;
    expect(`${check?.method} ${check?.path}`).toBe('GET /api/public/events/');
    expect(first?.method).toBe('POST');
    // At 10 requests a second, a second's pause keeps the check out of the run's first second.
    expect(Date.parse(first!.time) - Date.parse(check!.time)).toBeGreaterThanOrEqual(950);
  });

  it('a signal during the check interrupts the command (exit 130), nothing sent', async () => {
    sandbox = await startSandbox({ rate: 0, apiKey: OLD_KEY });
    const dir = eventsJob(3, { incremental: true });
    // Interrupted once the check has its answer, while the run waits its second.
    const controller = new AbortController();
    const watch = setInterval(() => {
      if (sandbox!.requests.length > 0) controller.abort('SIGINT');
    }, 2);
    const r = await runCli(['import', 'job.yaml', '--key-rotated'], {
      cwd: dir,
      env: { ENGAGE_API_KEY: OLD_KEY, ENGAGE_BASE_URL: sandbox.url },
      signal: controller.signal,
    });
    clearInterval(watch);
    expect(r.code).toBe(130);
    expect(r.stderr).toContain('interrupted (SIGINT) while waiting for the new API key; nothing was sent');
    expect(sandbox.requests.filter((q) => q.method === 'POST')).toHaveLength(0);
  });
});
