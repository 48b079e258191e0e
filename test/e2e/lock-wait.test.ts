import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { parse } from 'csv-parse/sync';
import { afterEach, describe, expect, it } from 'vitest';
import { startSandbox, type Sandbox } from '../../src/sandbox/index.js';
import { eventsJob } from '../helpers/events-job.js';
import { runCli } from '../helpers/run-cli.js';
import { tmpTree } from '../helpers/tmp.js';

const ROOT = join(import.meta.dirname, '../..');
// The holder's start: now, since a lock taken before this machine booted is stale whatever its pid.
const STARTED = new Date().toISOString();

let sandbox: Sandbox | undefined;
afterEach(async () => {
  await sandbox?.close();
  sandbox = undefined;
});

/**
 * A state directory whose lock is held by a live engage-import process (this test's own pid): a
 * preview catching up the state, or a state command, at the moment the nightly run starts.
 */
function lockedStateDir(): { out: string; state: string; lock: string } {
  const out = tmpTree();
  const state = join(out, 'state');
  mkdirSync(state);
  const lock = join(state, 'lock');
  writeFileSync(
    lock,
    `${JSON.stringify({ pid: process.pid, hostname: hostname(), startedAt: STARTED, token: 't' })}\n`,
  );
  return { out, state, lock };
}

/** Virtual time for the lock wait and the transport; `release` runs once the clock passes 1 s. */
function clockReleasingAt(release?: () => void) {
  let t = 0;
  return {
    now: () => t,
    sleep: async (ms: number) => {
      t += ms;
      if (release !== undefined && t >= 1_000) release();
      await new Promise((r) => setTimeout(r, 1));
    },
  };
}

const importSamples = (out: string, state: string, clock: ReturnType<typeof clockReleasingAt>, extra: string[] = []) =>
  runCli(
    [
      'import',
      'samples/job.yaml',
      '--base-url',
      sandbox!.url,
      '--report',
      join(out, 'report.csv'),
      '--state-dir',
      state,
      '--rate',
      '1000',
      ...extra,
    ],
    { cwd: ROOT, env: { ENGAGE_API_KEY: sandbox!.apiKey }, clock },
  );

describe('a run that starts while another process holds the state directory', () => {
  it('waits for the lock, then runs as usual', async () => {
    sandbox = await startSandbox({ rate: 0 });
    const { out, state, lock } = lockedStateDir();
    const r = await importSamples(
      out,
      state,
      clockReleasingAt(() => rmSync(lock, { force: true })),
    );
    expect(r.stderr).toContain(
      `engage-import: waiting up to 60 s for ${state}, in use by another engage-import process (pid ${process.pid} on host ${hostname()}, since ${STARTED})`,
    );
    expect(r.code).toBe(1); // the samples hold bad rows on purpose
    const report = parse(readFileSync(join(out, 'report.csv')), { columns: true }) as { status: string }[];
    expect(report.filter((l) => l.status === 'ok')).toHaveLength(73);
  });

  it('is refused, naming the holder and sending nothing, when the lock is still held after --lock-wait', async () => {
    sandbox = await startSandbox({ rate: 0 });
    const { out, state } = lockedStateDir();
    const r = await importSamples(out, state, clockReleasingAt(), ['--lock-wait', '2']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('waiting up to 2 s for');
    expect(r.stderr).toContain(`is in use by another engage-import run (pid ${process.pid} on host ${hostname()}`);
    expect(sandbox.requests).toHaveLength(0);
  });

  it('names a run in progress as in use, never as an unfinished run to move away', async () => {
    sandbox = await startSandbox({ rate: 0 });
    const { out, state, lock } = lockedStateDir();
    // A run that started (its folder exists, unfinished): interrupted before its first row…
    rmSync(lock);
    const stop = new AbortController();
    stop.abort('SIGTERM');
    const first = await runCli(
      ['import', 'samples/job.yaml', '--base-url', sandbox.url, '--report', join(out, 'r1.csv'), '--state-dir', state],
      { cwd: ROOT, env: { ENGAGE_API_KEY: sandbox.apiKey }, signal: stop.signal },
    );
    expect(first.code).toBe(143);
    // …and still running: its process holds the lock.
    writeFileSync(
      lock,
      `${JSON.stringify({ pid: process.pid, hostname: hostname(), startedAt: STARTED, token: 't' })}\n`,
    );
    const r = await importSamples(out, state, clockReleasingAt(), ['--lock-wait', '1']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('is in use by another engage-import run');
    expect(r.stderr).not.toContain('unfinished');
    expect(r.stderr).not.toContain('move that folder away');
  });

  it('Ctrl-C while waiting stops with 130, saying nothing was sent', async () => {
    sandbox = await startSandbox({ rate: 0 });
    const { out, state } = lockedStateDir();
    const stop = new AbortController();
    const r = await runCli(
      ['import', 'samples/job.yaml', '--base-url', sandbox.url, '--report', join(out, 'r.csv'), '--state-dir', state],
      {
        cwd: ROOT,
        env: { ENGAGE_API_KEY: sandbox.apiKey },
        clock: clockReleasingAt(() => stop.abort('SIGINT')),
        signal: stop.signal,
      },
    );
    expect(r.code).toBe(130);
    expect(r.stderr).toContain(
      'engage-import: interrupted (SIGINT) while waiting for the state directory; nothing was sent',
    );
    expect(sandbox.requests).toHaveLength(0);
  });

  it('--lock-wait 0 refuses at once, as before', async () => {
    sandbox = await startSandbox({ rate: 0 });
    const { out, state } = lockedStateDir();
    const r = await importSamples(out, state, clockReleasingAt(), ['--lock-wait', '0']);
    expect(r.code).toBe(2);
    expect(r.stderr).not.toContain('waiting');
    expect(r.stderr).toContain('is in use by another engage-import run');
  });
});

describe('a resume that starts while another process holds the state directory', () => {
  it('reads the run after the wait: a run finished meanwhile is finished, and nothing is sent again', async () => {
    sandbox = await startSandbox({ rate: 0 });
    const dir = eventsJob(2);
    const env = { ENGAGE_API_KEY: sandbox.apiKey, ENGAGE_BASE_URL: sandbox.url };
    // A run stopped before its first row: unfinished.
    const stop = new AbortController();
    stop.abort('SIGTERM');
    expect((await runCli(['import', 'job.yaml'], { cwd: dir, env, signal: stop.signal })).code).toBe(143);
    // Another process holds the state directory: it is that run's other resume, which finishes it
    // while this one waits.
    const lock = join(dir, '.engage-import', 'lock');
    writeFileSync(
      lock,
      `${JSON.stringify({ pid: process.pid, hostname: hostname(), startedAt: STARTED, token: 't' })}\n`,
    );
    let other: Awaited<ReturnType<typeof runCli>> | undefined;
    let t = 0;
    const clock = {
      now: () => t,
      sleep: async (ms: number) => {
        t += ms;
        if (other === undefined && t >= 1_000) {
          rmSync(lock);
          other = await runCli(['resume', '--report', 'other.csv'], { cwd: dir, env });
        }
        await new Promise((r) => setTimeout(r, 1));
      },
    };
    const r = await runCli(['resume', '--report', 'mine.csv'], { cwd: dir, env, clock });
    expect(other?.code).toBe(0);
    // Three contacts and two events, sent once, by the other resume.
    expect(sandbox.requests).toHaveLength(5);
    expect(r.code).toBe(0);
    expect(r.stderr).toContain('has finished already; nothing to resume');
    expect(r.stderr).not.toContain('mine.csv');
    expect(sandbox.requests).toHaveLength(5);
  });
});

describe('two runs of one job started at the same moment', () => {
  it('the second waits for the first, then finds its events sent: neither is refused, nothing is sent twice', async () => {
    sandbox = await startSandbox({ rate: 0 });
    const env = { ENGAGE_API_KEY: sandbox.apiKey, ENGAGE_BASE_URL: sandbox.url };
    const dir = eventsJob(6, { incremental: true });
    // The lock is taken before the checks that only hold while no other run can start (an
    // unfinished run, the sync state), and kept until the run's ledger holds it.
    const runs = await Promise.all(
      [1, 2].map(() => runCli(['import', 'job.yaml', '--rate', '1000'], { cwd: dir, env })),
    );
    expect(runs.map((r) => r.code)).toEqual([0, 0]);
    expect(sandbox.requests.filter((q) => q.path.includes('/events/'))).toHaveLength(6);
    expect(runs.filter((r) => r.stderr.includes('already_sent 6'))).toHaveLength(1);
  });
});
