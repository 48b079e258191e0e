import { appendFileSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'csv-parse/sync';
import { afterEach, describe, expect, it } from 'vitest';
import { DEFAULTS } from '../../src/defaults.js';
import { startSandbox, type Sandbox, type SandboxOptions } from '../../src/sandbox/index.js';
import { runCli } from '../helpers/run-cli.js';
import { eventsJob } from '../helpers/events-job.js';

let sandbox: Sandbox | undefined;
afterEach(async () => {
  await sandbox?.close();
  sandbox = undefined;
});

/** A sandbox without a rate limit (plus `options`), an events job of `rows` rows, and the env that points the CLI at both. */
async function eventsSetUp(rows: number, options: SandboxOptions = {}) {
  const server = await startSandbox({ rate: 0, ...options });
  sandbox = server; // closed by afterEach
  return { server, dir: eventsJob(rows), env: { ENGAGE_API_KEY: server.apiKey, ENGAGE_BASE_URL: server.url } };
}

/** `import job.yaml` stopped by a signal before its first request: an unfinished run, nothing sent. */
function importStoppedAtOnce(dir: string, env: Record<string, string>, extra: string[] = [], signal = 'SIGINT') {
  const controller = new AbortController();
  controller.abort(signal);
  return runCli(['import', 'job.yaml', ...extra], { cwd: dir, env, signal: controller.signal });
}

const statuses = (dir: string) =>
  (parse(readFileSync(join(dir, 'out/report.csv')), { columns: true }) as Record<string, string>[]).map(
    (r) => `${r.key}:${r.status}`,
  );

describe('interrupt and resume', () => {
  it('SIGINT: stops taking rows, reports the rest not_sent, exits 130; resume sends only those', async () => {
    const { server, dir, env } = await eventsSetUp(60, { latencyMs: 5 });
    const controller = new AbortController();
    const stop = setInterval(() => {
      if (server.requests.length >= 20) controller.abort('SIGINT');
    }, 1);
    const first = await runCli(['import', 'job.yaml', '--rate', '1000'], { cwd: dir, env, signal: controller.signal });
    clearInterval(stop);
    expect(first.code).toBe(130);
    expect(first.stderr).toMatch(
      /Stopped early: interrupted by SIGINT; resume with: engage-import resume \.engage-import\/runs\/\d{8}T\d{6}Z-\w+/,
    );
    // Without a terminal the stage's log line says it stopped, not that it is done.
    expect(first.stderr).toMatch(
      /\[events: events\.csv\] .* \(stopped early: rows not sent are not_sent in the report/,
    );
    expect(first.stderr).not.toMatch(/\[events: events\.csv\] .* \(done\)/);
    const afterFirst = statuses(dir);
    expect(afterFirst).toHaveLength(63);
    const sentFirst = server.requests.length;
    const notSent = afterFirst.filter((s) => s.endsWith(':not_sent')).length;
    expect(notSent).toBeGreaterThan(0);

    const resumed = await runCli(['resume', '--rate', '1000'], { cwd: dir, env });
    expect(resumed.code).toBe(0);
    expect(server.requests.length - sentFirst).toBe(notSent);
    // As if the run had never stopped: every row once, all ok; no event reached the server twice.
    expect(statuses(dir)).toEqual([
      ...['0', '1', '2'].map((k) => `${k}:ok`),
      ...Array.from({ length: 60 }, (_, i) => `E${i}:ok`),
    ]);
    const ids = server.requests.map((q) => (q.body as { data?: { id?: string } }).data?.id).filter(Boolean);
    expect(new Set(ids).size).toBe(ids.length);

    const again = await runCli(['resume'], { cwd: dir, env });
    expect(again.code).toBe(0);
    expect(again.stderr).toMatch(/has finished already; nothing to resume/);
  });

  it('a stop that comes while the last request of a stage is in flight leaves that stage "done"', async () => {
    const { server, dir, env } = await eventsSetUp(1, { latencyMs: 300 });
    const controller = new AbortController();
    const stop = setInterval(() => {
      if (server.requests.some((q) => q.path.includes('/events/'))) controller.abort('SIGINT');
    }, 1);
    const run = await runCli(['import', 'job.yaml', '--rate', '1000'], { cwd: dir, env, signal: controller.signal });
    clearInterval(stop);
    expect(statuses(dir)).toEqual(['0:ok', '1:ok', '2:ok', 'E0:ok']);
    expect(run.stderr).toMatch(/\[events: events\.csv\] 1\/1 rows, ok 1, not ok 0.* \(done\)/);
    expect(run.stderr).not.toContain('stopped early');
  });

  it('a stop that comes while a bulk import runs leaves that stage "stopped early", its rows unknown', async () => {
    const { server, dir, env } = await eventsSetUp(0, { bulkRowsPerS: 1 });
    writeFileSync(
      join(dir, 'contacts.csv'),
      `custom_id\n${Array.from({ length: 20 }, (_, i) => `C${i}`).join('\n')}\n`,
    );
    const controller = new AbortController();
    const stop = setInterval(() => {
      if (server.requests.some((q) => q.path.endsWith('/import/'))) controller.abort('SIGINT');
    }, 1);
    const run = await runCli(['import', 'job.yaml', '--bulk', 'always', '--rate', '1000'], {
      cwd: dir,
      env,
      signal: controller.signal,
    });
    clearInterval(stop);
    expect(run.code).toBe(130);
    expect(new Set(statuses(dir).map((s) => s.split(':')[1]))).toEqual(new Set(['unknown']));
    expect(run.stderr).toMatch(/\[contacts: contacts\.csv\] 20\/20 rows, .* \(stopped early: /);
    expect(run.stderr).not.toMatch(/\[contacts: contacts\.csv\] .*\(done\)/);
  });

  it('refuses to resume when an input file changed, saying which', async () => {
    const { dir, env } = await eventsSetUp(5);
    const first = await importStoppedAtOnce(dir, env, [], 'SIGTERM');
    expect(first.code).toBe(143);
    appendFileSync(join(dir, 'events.csv'), 'E99,1\n');
    const resumed = await runCli(['resume'], { cwd: dir, env });
    expect(resumed.code).toBe(2);
    expect(resumed.stderr).toMatch(/events\.csv changed since the run started/);
  });

  it('refuses a plain import of a job whose last run is unfinished (it would send its rows again)', async () => {
    const { server, dir, env } = await eventsSetUp(5);
    await importStoppedAtOnce(dir, env);
    const again = await runCli(['import', 'job.yaml'], { cwd: dir, env });
    expect(again.code).toBe(2);
    expect(again.stderr).toMatch(
      /an unfinished run of this job is in (\.engage-import\/runs\/\S+): continue it with 'engage-import resume \1'/,
    );
    expect(server.requests).toHaveLength(0);
    // The command it gives keeps this command's report and key file, as a stop's does.
    writeFileSync(join(dir, 'key.txt'), env.ENGAGE_API_KEY);
    const dated = await runCli(['import', 'job.yaml', '--report', 'out/night-2.csv', '--api-key-file', 'key.txt'], {
      cwd: dir,
      env: { ENGAGE_BASE_URL: env.ENGAGE_BASE_URL },
    });
    expect(dated.stderr).toMatch(
      /continue it with 'engage-import resume \.engage-import\/runs\/\S+ --report out\/night-2\.csv --api-key-file key\.txt'/,
    );
    // Moving the old run away starts over, as the message says.
    renameSync(join(dir, '.engage-import'), join(dir, 'old-state'));
    expect((await runCli(['import', 'job.yaml'], { cwd: dir, env })).code).toBe(0);
  });

  it('resumes the unfinished run of this job even when another job ran to its end since', async () => {
    const { dir, env } = await eventsSetUp(5);
    await importStoppedAtOnce(dir, env);
    expect((await runCli(['import', 'contacts.yaml'], { cwd: dir, env })).code).toBe(0);
    // A plain import of the first job is still refused: its newest run is not the newest run.
    expect((await runCli(['import', 'job.yaml'], { cwd: dir, env })).stderr).toMatch(/an unfinished run of this job/);
    const resumed = await runCli(['import', 'job.yaml', '--resume'], { cwd: dir, env });
    expect(resumed.code).toBe(0);
    expect(statuses(dir).filter((s) => s.startsWith('E'))).toEqual(['E0:ok', 'E1:ok', 'E2:ok', 'E3:ok', 'E4:ok']);
  });

  it('a resume with another payload option refuses and says which; one left out is the run’s', async () => {
    const { dir, env } = await eventsSetUp(5);
    await importStoppedAtOnce(dir, env, ['--limit', '3']);
    const r = await runCli(['resume', '--limit', '4'], { cwd: dir, env });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/option limit was 3, now 4/);
    expect((await runCli(['resume'], { cwd: dir, env })).code).toBe(0);
    expect(statuses(dir)).toHaveLength(3 + 3);
  });

  it('a resume with other bulk options refuses and names each; the plain resume the run prints goes on as it started', async () => {
    const { server, dir, env } = await eventsSetUp(5);
    const stopped = await importStoppedAtOnce(dir, env, ['--bulk', 'never', '--bulk-chunk-rows', '2']);
    const r = await runCli(['resume', '--bulk', 'always', '--bulk-min-rows', '5'], { cwd: dir, env });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(
      `option bulk was never, now always; option bulk-min-rows was ${DEFAULTS.bulkMinRows}, now 5`,
    );
    expect(server.requests).toHaveLength(0);
    // Exactly what the stopped run printed: its bulk options are the run's own.
    const hint = /resume with: (engage-import resume \S+)/.exec(stopped.stderr)![1]!;
    const same = await runCli(hint.split(' ').slice(1), { cwd: dir, env });
    expect(same.code).toBe(0);
    expect(statuses(dir).every((s) => s.endsWith(':ok'))).toBe(true);
  });

  it('a run whose key came from --api-key-file prints a resume that reads the same file (its path, never the key)', async () => {
    const { server, dir } = await eventsSetUp(3);
    writeFileSync(join(dir, 'key.txt'), `${server.apiKey}\n`);
    const env = { ENGAGE_BASE_URL: server.url }; // no ENGAGE_API_KEY: the file is the only key
    const stopped = await importStoppedAtOnce(dir, env, ['--api-key-file', 'key.txt']);
    expect(stopped.code).toBe(130);
    const hint = /resume with: (engage-import resume \S+ --api-key-file \S+)/.exec(stopped.stderr)?.[1] ?? '';
    expect(hint).toMatch(/^engage-import resume \.engage-import\/runs\/\S+ --api-key-file key\.txt$/);
    expect(stopped.stderr).not.toContain(server.apiKey);
    const resumed = await runCli(hint.split(' ').slice(1), { cwd: dir, env });
    expect(resumed.code).toBe(0);
    expect(statuses(dir).every((s) => s.endsWith(':ok'))).toBe(true);
    expect(server.requests.filter((q) => q.path.includes('/events/'))).toHaveLength(3);
  });

  it('resume --resend-unknown sends the rows whose answer was lost, even after the run finished', async () => {
    const { server, dir, env } = await eventsSetUp(30, { dropRate: 0.3, seed: 5 });
    const first = await runCli(['import', 'job.yaml', '--rate', '1000'], { cwd: dir, env });
    expect(first.code).toBe(1);
    const unknown = statuses(dir).filter((s) => s.endsWith(':unknown'));
    expect(unknown.length).toBeGreaterThan(0);
    expect((await runCli(['resume'], { cwd: dir, env })).stderr).toMatch(/has finished already/);
    server.setFaults({ dropRate: 0 });
    const before = server.requests.length;
    const resent = await runCli(['resume', '--resend-unknown', '--rate', '1000'], { cwd: dir, env });
    expect(resent.code).toBe(0);
    expect(server.requests.length - before).toBe(unknown.length);
    expect(statuses(dir).every((s) => s.endsWith(':ok'))).toBe(true);
  });

  it('a 401 exits 3 with --fail-on-invalid too', async () => {
    sandbox = await startSandbox({ rate: 0 });
    const dir = eventsJob(3);
    const r = await runCli(['import', 'job.yaml', '--fail-on-invalid'], {
      cwd: dir,
      env: { ENGAGE_API_KEY: 'wrong', ENGAGE_BASE_URL: sandbox.url },
    });
    expect(r.code).toBe(3);
    expect(sandbox.requests).toHaveLength(1);
  });

  it('--fail-on-invalid sends nothing when a row is invalid', async () => {
    sandbox = await startSandbox({ rate: 0 });
    const dir = eventsJob(3);
    appendFileSync(join(dir, 'events.csv'), 'E9,\n');
    const r = await runCli(['import', 'job.yaml', '--fail-on-invalid'], {
      cwd: dir,
      env: { ENGAGE_API_KEY: sandbox.apiKey, ENGAGE_BASE_URL: sandbox.url },
    });
    expect(r.code).toBe(1);
    expect(sandbox.requests).toHaveLength(0);
    expect(statuses(dir)).toEqual([
      '0:not_sent',
      '1:not_sent',
      '2:not_sent',
      'E0:not_sent',
      'E1:not_sent',
      'E2:not_sent',
      'E9:invalid',
    ]);
  });

  it('says so when there is nothing to resume, and where runs are kept', async () => {
    const dir = eventsJob(1);
    const env = { ENGAGE_API_KEY: 'k', ENGAGE_BASE_URL: 'http://127.0.0.1:9/api/public/' };
    const r = await runCli(['resume'], { cwd: dir, env });
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(
      'engage-import: no run to resume in .engage-import: a run keeps its ledger in .engage-import beside its job file (or in the --state-dir it was given): name that folder with --state-dir, or the job with engage-import import JOB --resume\n',
    );
    // As it says: the job named finds its folder (here, nothing to resume there either, named as such).
    const named = await runCli(['import', 'job.yaml', '--resume'], { cwd: dir, env });
    expect(named.stderr).toContain('no run of job.yaml to resume in .engage-import');
  });
});

describe('credentials and address', () => {
  it.each([
    [
      [],
      {},
      'engage-import: no API key: set ENGAGE_API_KEY or pass --api-key-file FILE (the key is never read from the command line)\n',
    ],
    [
      [],
      { ENGAGE_API_KEY: 'k' },
      'engage-import: no API address: pass --base-url or set ENGAGE_BASE_URL (e.g. https://acme.example.com/api/public/)\n',
    ],
  ])('exits 2 before touching anything: %j %j', async (args, env, message) => {
    const dir = eventsJob(1);
    const r = await runCli(['import', 'job.yaml', ...args], { cwd: dir, env });
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(message);
  });

  it('refuses http:// to a host that is not loopback', async () => {
    const dir = eventsJob(1);
    const r = await runCli(['import', 'job.yaml', '--base-url', 'http://acme.example.com/api/public/'], {
      cwd: dir,
      env: { ENGAGE_API_KEY: 'k' },
    });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/http/);
  });
});

describe('engage-import events list', () => {
  it('follows `next` to the end and prints every event definition', async () => {
    sandbox = await startSandbox({ rate: 0 });
    const headers = {
      Authorization: `Token ${sandbox.apiKey}`,
      'Content-Type': 'application/json',
      Accept: '*/*; version=2',
    };
    await fetch(new URL('users/update_or_create/', sandbox.url), {
      method: 'POST',
      headers,
      body: JSON.stringify({ custom_id: 'u' }),
    });
    for (let i = 0; i < 130; i++) {
      await fetch(new URL('users-by-id/u/events/', sandbox.url), {
        method: 'POST',
        headers,
        body: JSON.stringify({ name: `event-${String(i).padStart(3, '0')}` }),
      });
    }
    const r = await runCli(['events', 'list', '--base-url', sandbox.url], { env: { ENGAGE_API_KEY: sandbox.apiKey } });
    expect(r.code).toBe(0);
    const names = r.stdout
      .trim()
      .split('\n')
      .map((l) => l.split('\t')[1]);
    expect(names.filter((n) => n?.startsWith('event-'))).toHaveLength(130);
    expect(r.stderr).toMatch(/^\d+ event definitions\n$/);
    expect(sandbox.requests.filter((q) => q.method === 'GET')).toHaveLength(2);
  });
});
