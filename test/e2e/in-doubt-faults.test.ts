import { existsSync, mkdirSync, readdirSync, readFileSync } from 'node:fs';
import Database from 'better-sqlite3';
import { createServer, type RequestListener, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { parse } from 'csv-parse/sync';
import { afterEach, describe, expect, it } from 'vitest';
import { startSandbox, type Sandbox } from '../../src/sandbox/index.js';
import { fakeClock } from '../transport/_fake-clock.js';
import { EVENTS_MAPPING as EVENTS } from '../helpers/events-job.js';
import { closedPort } from '../helpers/closed-port.js';
import { runCli } from '../helpers/run-cli.js';
import { tmpTree } from '../helpers/tmp.js';

let sandbox: Sandbox | undefined;
let server: Server | undefined;
afterEach(async () => {
  await sandbox?.close();
  sandbox = undefined;
  server?.closeAllConnections();
  await new Promise((r) => (server ? server.close(r) : r(undefined)));
  server = undefined;
});

const KEY = `k${'e'.repeat(62)}y`;
const PRODUCTS =
  'resource: product\nsource: { file: products.csv }\nkey: sku\nfields:\n  custom_id: sku\n  name: name\n';
const events = (n: number) => `id,user\n${Array.from({ length: n }, (_, i) => `E${i},U0`).join('\n')}\n`;
const products = (n: number) => `sku,name\n${Array.from({ length: n }, (_, i) => `P${i},Product ${i}`).join('\n')}\n`;
const report = (dir: string) =>
  parse(readFileSync(join(dir, 'out/report.csv')), { columns: true }) as Record<string, string>[];
const statusCounts = (dir: string) => {
  const counts: Record<string, number> = {};
  for (const l of report(dir)) counts[l.status!] = (counts[l.status!] ?? 0) + 1;
  return counts;
};
/** How many times the sandbox applied each row (by `data.id` for events, `custom_id` for products). */
function applied(s: Sandbox): Map<string, number> {
  const counts = new Map<string, number>();
  for (const q of s.requests) {
    if (!q.applied) continue;
    const body = q.body as { data?: { id?: string }; custom_id?: string } | null;
    const id = body?.data?.id ?? body?.custom_id;
    if (id !== undefined) counts.set(id, (counts.get(id) ?? 0) + 1);
  }
  return counts;
}
/** A stand-in for what sits behind a wrong base URL, or a server that misbehaves. */
async function fakeServer(handler: RequestListener): Promise<string> {
  server = createServer(handler);
  await new Promise<void>((r) => server!.listen(0, '127.0.0.1', r));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/public/`;
}
const env = (url: string) => ({ ENGAGE_API_KEY: KEY, ENGAGE_BASE_URL: url });

describe('1. a 500 after the write is never resent silently', () => {
  it('events answered 500 (half after the write) are unknown, never applied twice, never in the rejects', async () => {
    sandbox = await startSandbox({
      rate: 0,
      failRate: 1,
      seed: 3,
      apiKey: KEY,
      fixtures: { users: [{ custom_id: 'U0' }] },
    });
    const dir = tmpTree({ 'events.csv': events(20), 'job.yaml': EVENTS });
    const r = await runCli(['import', 'job.yaml', '--rate', '1000', '--rejects', 'out/rejects.csv'], {
      cwd: dir,
      env: env(sandbox.url),
    });
    expect(r.code).toBe(1);
    expect(statusCounts(dir)).toEqual({ unknown: 20 });
    expect(sandbox.requests).toHaveLength(20);
    // The summary gives the command that sends them again, with the run's folder.
    expect(r.stderr).toMatch(
      /\n20 rows are unknown \(the API may have applied them\): check the account, then send them again with: engage-import resume \.engage-import\/runs\/\S+ --rejects out\/rejects\.csv --resend-unknown\n/,
    );
    expect(Math.max(...applied(sandbox).values())).toBe(1);
    expect(report(dir)[0]!.message).toMatch(
      /^HTTP 500: Server Error .*; the request may have been applied and was not resent to avoid a duplicate: check the account; if it is not there, resume --resend-unknown$/,
    );
    // Rows in doubt are not rows to re-import: no rejects line for any of them (a header at most).
    const rejects = join(dir, 'out/rejects.csv');
    expect(
      existsSync(rejects) ? readFileSync(rejects, 'utf8').split('\n').filter(Boolean).length : 0,
    ).toBeLessThanOrEqual(1);
    expect(r.stderr).toMatch(/unknown 20/);

    // The next night's incremental run, the API healthy again: rows in doubt stay unknown, none is resent.
    sandbox.setFaults({ failRate: 0 });
    const sent = sandbox.requests.length;
    const next = await runCli(
      ['import', 'job.yaml', '--rate', '1000', '--incremental', '--report', 'out/night-2.csv'],
      {
        cwd: dir,
        env: env(sandbox.url),
      },
    );
    expect(next.code).toBe(1);
    expect(sandbox.requests.length).toBe(sent);
    const night2 = parse(readFileSync(join(dir, 'out/night-2.csv')), { columns: true }) as {
      status: string;
      message: string;
    }[];
    expect(night2.map((l) => l.status)).toEqual(Array(20).fill('unknown'));
    // The command that resends it names that run's folder, as it is from here.
    const resend = /then engage-import resume (\S+) --resend-unknown, or/.exec(night2[0]!.message)?.[1] ?? '';
    expect(resend).toMatch(/^\.engage-import\/runs\/\d{8}T\d{6}Z-\w+$/);
    expect(existsSync(join(dir, resend, 'ledger.sqlite'))).toBe(true);
    // They are the first run's to resend: this run's summary does not offer its own resume for them.
    expect(next.stderr).not.toMatch(/rows are unknown .* --resend-unknown/);

    // The file changed since (a resume is refused then): the message gives the command that lets
    // the next run send that one event, and only it, again.
    const forget = /engage-import (state forget --job job.yaml --resource event --key [0-9a-f]{64})$/.exec(
      night2[0]!.message,
    );
    expect(forget).not.toBeNull();
    const f = await runCli(forget![1]!.split(' '), { cwd: dir });
    expect([f.code, f.stderr]).toEqual([0, expect.stringMatching(/^Forgot event [0-9a-f]{64} \(1 row\)/)]);
    const night3 = await runCli(
      ['import', 'job.yaml', '--rate', '1000', '--incremental', '--report', 'out/night-3.csv'],
      { cwd: dir, env: env(sandbox.url) },
    );
    expect(sandbox.requests.length).toBe(sent + 1);
    const lines = parse(readFileSync(join(dir, 'out/night-3.csv')), { columns: true }) as { status: string }[];
    expect(lines.map((l) => l.status)).toEqual(['ok', ...Array(19).fill('unknown')]);
    expect(night3.code).toBe(1);
  });

  it('--in-doubt resend resends them (at least once), and --unsafe-retries always still works with a deprecation note', async () => {
    sandbox = await startSandbox({
      rate: 0,
      failRate: 0.5,
      seed: 5,
      apiKey: KEY,
      fixtures: { users: [{ custom_id: 'U0' }] },
    });
    const dir = tmpTree({ 'events.csv': events(20), 'job.yaml': EVENTS });
    const r = await runCli(
      ['import', 'job.yaml', '--rate', '1000', '--max-attempts', '20', '--unsafe-retries', 'always'],
      { cwd: dir, env: env(sandbox.url) },
    );
    expect(r.stderr).toContain('--unsafe-retries is deprecated; use --in-doubt resend');
    expect(statusCounts(dir)).toEqual({ ok: 20 });
    expect(sandbox.requests.length).toBeGreaterThan(20);
  });

  it('resume --resend-unknown of products: those not created end ok, each created once; those the API says exist stay unknown (created by the 500, or there before)', async () => {
    sandbox = await startSandbox({ rate: 0, failRate: 1, seed: 11, apiKey: KEY });
    const dir = tmpTree({ 'products.csv': products(12), 'job.yaml': PRODUCTS });
    expect((await runCli(['import', 'job.yaml', '--rate', '1000'], { cwd: dir, env: env(sandbox.url) })).code).toBe(1);
    expect(statusCounts(dir)).toEqual({ unknown: 12 });
    const createdBefore = applied(sandbox).size;
    expect(createdBefore).toBeGreaterThan(0); // some of the 500s came after the write
    expect(createdBefore).toBeLessThan(12);
    sandbox.setFaults({ failRate: 0 });
    const r = await runCli(['resume', '--resend-unknown', '--rate', '1000'], { cwd: dir, env: env(sandbox.url) });
    expect(r.code).toBe(1);
    expect(statusCounts(dir)).toEqual({ ok: 12 - createdBefore, unknown: createdBefore });
    expect([...applied(sandbox).values()].every((n) => n === 1)).toBe(true);
    expect(applied(sandbox).size).toBe(12);
    const exists = report(dir).filter(
      (l) =>
        l.status === 'unknown' &&
        l.message ===
          'custom_id: product with this custom id already exists.; an earlier attempt of this row may have created it, or it was there before this run and this row never reached it: check its values in the account (a resend gets the same answer)',
    );
    expect(exists).toHaveLength(createdBefore);
    // The advice does not send them round again: a resend gets the same answer.
    expect(r.stderr).not.toMatch(/send (it|them) again with: .* --resend-unknown/);
    expect(r.stderr).toContain(
      `${createdBefore === 1 ? '1 row is' : `${createdBefore} rows are`} unknown because the API answered that`,
    );
    expect(r.stderr).toMatch(/a resend gets the same answer\. .* set bulk: true in the products mapping/);
  });
});

describe('1a. the advice after a crash', () => {
  it('a row still an intent in the ledger (in flight at a kill -9) is counted in the resend advice, as the report has it unknown', async () => {
    sandbox = await startSandbox({ rate: 0, apiKey: KEY, bulkRowsPerS: 0 });
    // A category given empty: the products go one by one even in a bulk stage.
    const mapping = `${PRODUCTS}  category_name: { value: "" }\n`;
    const dir = tmpTree({ 'products.csv': products(2), 'job.yaml': mapping });
    const first = await runCli(['import', 'job.yaml', '--rate', '1000', '--bulk', 'always'], {
      cwd: dir,
      env: env(sandbox.url),
    });
    expect(first.code).toBe(0);
    // What a kill -9 leaves while the first product's create is in flight: its intent, the run unfinished.
    const runs = join(dir, '.engage-import/runs');
    const db = new Database(join(runs, readdirSync(runs)[0]!, 'ledger.sqlite'));
    db.prepare(`UPDATE rows SET state = 'intent', status = NULL, id = NULL, message = NULL WHERE line = 2`).run();
    db.prepare(`DELETE FROM meta WHERE key = 'finished_at'`).run();
    db.close();
    const resumed = await runCli(['resume', '--rate', '1000'], { cwd: dir, env: env(sandbox.url) });
    expect(resumed.code).toBe(1);
    expect(statusCounts(dir)).toEqual({ unknown: 1, ok: 1 });
    expect(resumed.stderr).toMatch(
      /\n1 row is unknown \(the API may have applied it\): check the account, then send it again with: engage-import resume \.engage-import\/runs\/\S+ --resend-unknown\n/,
    );
  });
});

describe('1b. a resend refused for its own command line', () => {
  it('leaves the finished run finished: the next import of the job is not refused for an unfinished run', async () => {
    sandbox = await startSandbox({ rate: 0, failRate: 1, seed: 11, apiKey: KEY });
    const dir = tmpTree({ 'products.csv': products(3), 'job.yaml': PRODUCTS });
    expect((await runCli(['import', 'job.yaml', '--rate', '1000'], { cwd: dir, env: env(sandbox.url) })).code).toBe(1);
    expect(statusCounts(dir)).toEqual({ unknown: 3 });
    sandbox.setFaults({ failRate: 0 });
    mkdirSync(join(dir, 'folder'));
    const refused = await runCli(['resume', '--resend-unknown', '--report', 'folder'], {
      cwd: dir,
      env: env(sandbox.url),
    });
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('--report folder is a folder');
    // A report that cannot be written (a part of its path is a file): refused too, nothing sent.
    const unwritable = await runCli(['resume', '--resend-unknown', '--report', 'products.csv/x.csv'], {
      cwd: dir,
      env: env(sandbox.url),
    });
    expect(unwritable.code).not.toBe(0);
    expect(unwritable.stderr).not.toContain('the run stopped unfinished');
    expect(sandbox.requests).toHaveLength(3);
    const next = await runCli(['import', 'job.yaml', '--rate', '1000', '--report', 'out/next.csv'], {
      cwd: dir,
      env: env(sandbox.url),
    });
    expect(next.stderr).not.toContain('an unfinished run of this job');
    expect(next.code).not.toBe(2);
  });
});

describe('2. a job that lists one mapping twice', () => {
  it('is refused before anything is sent (exit 2), by import and validate', async () => {
    sandbox = await startSandbox({ rate: 0, apiKey: KEY, fixtures: { users: [{ custom_id: 'U0' }] } });
    const dir = tmpTree({ 'events.csv': events(3), 'ev.yaml': EVENTS, 'job.yaml': 'mappings: [ev.yaml, ./ev.yaml]\n' });
    const r = await runCli(['import', 'job.yaml'], { cwd: dir, env: env(sandbox.url) });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(
      'mapping ./ev.yaml is listed twice (also as ev.yaml); each of its rows would be sent twice',
    );
    expect(sandbox.requests).toHaveLength(0);
    expect((await runCli(['validate', 'job.yaml'], { cwd: dir })).code).toBe(2);
  });
});

/** An import of 6 events stopped by Ctrl-C after its first request: an unfinished run. */
async function interruptedRun(dir: string, url: string): Promise<void> {
  const controller = new AbortController();
  const before = sandbox!.requests.length;
  const timer = setInterval(() => sandbox!.requests.length > before && controller.abort('SIGINT'), 1);
  const r = await runCli(['import', 'job.yaml', '--rate', '2', '--concurrency', '1'], {
    cwd: dir,
    env: env(url),
    signal: controller.signal,
  });
  clearInterval(timer);
  expect(r.code).toBe(130);
}

describe('3. resume against another target', () => {
  it('another --base-url or another key is refused, saying which differs', async () => {
    sandbox = await startSandbox({ rate: 0, apiKey: KEY, fixtures: { users: [{ custom_id: 'U0' }] } });
    const other = await startSandbox({ rate: 0, apiKey: KEY, fixtures: { users: [{ custom_id: 'U0' }] } });
    try {
      const dir = tmpTree({ 'events.csv': events(6), 'job.yaml': EVENTS });
      await interruptedRun(dir, sandbox.url);
      const moved = await runCli(['resume', '--rate', '1000'], { cwd: dir, env: env(other.url) });
      expect(moved.code).toBe(2);
      expect(moved.stderr).toContain(`the base URL was ${sandbox.url}, now ${other.url}`);
      const rekeyed = await runCli(['resume'], {
        cwd: dir,
        env: { ...env(sandbox.url), ENGAGE_API_KEY: `x${KEY.slice(1)}` },
      });
      expect(rekeyed.code).toBe(2);
      expect(rekeyed.stderr).toContain('the API key is not the one the run started with');
      expect(rekeyed.stderr).not.toContain(KEY.slice(1));
      expect(other.requests).toHaveLength(0);
      expect((await runCli(['resume', '--rate', '1000'], { cwd: dir, env: env(sandbox.url) })).code).toBe(0);
    } finally {
      await other.close();
    }
  });
});

describe('4. the default state directory is beside the job file', () => {
  it('an unfinished run is found from another working directory', async () => {
    sandbox = await startSandbox({ rate: 0, apiKey: KEY, fixtures: { users: [{ custom_id: 'U0' }] } });
    const dir = tmpTree({ 'events.csv': events(6), 'job.yaml': EVENTS, 'sub/.keep': '' });
    await interruptedRun(dir, sandbox.url);
    expect(existsSync(join(dir, '.engage-import/runs'))).toBe(true);
    const sent = sandbox.requests.length;
    const again = await runCli(['import', '../job.yaml', '--rate', '1000'], {
      cwd: join(dir, 'sub'),
      env: env(sandbox.url),
    });
    expect(again.code).toBe(2);
    expect(again.stderr).toContain(`an unfinished run of this job is in ${join(dir, '.engage-import/runs/')}`);
    expect(sandbox.requests.length).toBe(sent);
    expect(
      (
        await runCli(['import', '../job.yaml', '--resume', '--rate', '1000'], {
          cwd: join(dir, 'sub'),
          env: env(sandbox.url),
        })
      ).code,
    ).toBe(0);
    expect(Math.max(...applied(sandbox).values())).toBe(1);
    expect(applied(sandbox).size).toBe(6);
  });
});

describe('6. a 2xx that is not the answer of the API', () => {
  it.each([
    ['an HTML page', 'text/html', '<html><body>Welcome</body></html>'],
    ['an empty body', 'application/json', ''],
    ['a JSON array', 'application/json', '[1,2,3]'],
  ])('%s: rows unknown, three in a row stop the run (exit 3)', async (_name, type, body) => {
    const url = await fakeServer((_req, res) => res.writeHead(200, { 'content-type': type }).end(body));
    const dir = tmpTree({ 'events.csv': events(10), 'job.yaml': EVENTS });
    const r = await runCli(['import', 'job.yaml', '--rate', '1000', '--concurrency', '1'], { cwd: dir, env: env(url) });
    expect(r.code).toBe(3);
    expect(statusCounts(dir)).toEqual({ unknown: 3, not_sent: 7 });
    expect(report(dir)[0]!.message).toMatch(/^HTTP 200 but the answer is not the JSON object the API sends/);
    expect(r.stderr).toMatch(
      /3 answers in a row were not what the API sends .*the base URL is probably wrong, the run stopped\. If it is right \(a maintenance page, say\), resume later\. If it is wrong: a resume keeps the run's base URL, and this state directory now belongs to it; check the account for the rows in doubt, then start again with the right base URL and a new --state-dir, and keep that --state-dir on this job's command line from then on \(its sync state is the job's history\).*resume with: engage-import resume/s,
    );
  });

  it('doing as the message says (the right base URL, a new --state-dir, kept) sends every row, once', async () => {
    const url = await fakeServer((_req, res) =>
      res.writeHead(200, { 'content-type': 'text/html' }).end('<html></html>'),
    );
    sandbox = await startSandbox({ rate: 0, apiKey: KEY, fixtures: { users: [{ custom_id: 'U0' }] } });
    const dir = tmpTree({ 'events.csv': events(10), 'job.yaml': EVENTS });
    const wrong = await runCli(['import', 'job.yaml', '--rate', '1000', '--concurrency', '1'], {
      cwd: dir,
      env: env(url),
    });
    expect(wrong.code).toBe(3);
    const right = await runCli(['import', 'job.yaml', '--rate', '1000', '--state-dir', 'state-right'], {
      cwd: dir,
      env: env(sandbox.url),
    });
    expect(right.code).toBe(0);
    expect(statusCounts(dir)).toEqual({ ok: 10 });
    expect(sandbox.requests).toHaveLength(10);
    // The next night keeps that --state-dir: the events are in its history, none is sent again.
    const next = await runCli(['import', 'job.yaml', '--incremental', '--state-dir', 'state-right'], {
      cwd: dir,
      env: env(sandbox.url),
    });
    expect(next.code).toBe(0);
    expect(statusCounts(dir)).toEqual({ already_sent: 10 });
    expect(sandbox.requests).toHaveLength(10);
  });
});

describe('7. requests that never left', () => {
  it('connection refused: the first row given up unsent stops the run (exit 3), rows not_sent, resumable; no real waiting', async () => {
    const port = await closedPort();
    const clock = fakeClock();
    const dir = tmpTree({ 'events.csv': events(200), 'job.yaml': EVENTS });
    const url = `http://127.0.0.1:${port}/api/public/`;
    const r = await runCli(['import', 'job.yaml', '--rate', '1000'], { cwd: dir, env: env(url), clock });
    expect(r.code).toBe(3);
    expect(statusCounts(dir)).toEqual({ not_sent: 200 });
    expect(r.stderr).toMatch(
      /a request was given up unsent \(could not reach the API \(connection refused, ECONNREFUSED\) \(gave up after 5 attempts\)\), and the run stopped so that no later row goes before it; resume with: engage-import resume \.engage-import\/runs\//,
    );
    // The API is back: resume sends every row, once.
    sandbox = await startSandbox({ rate: 0, apiKey: KEY, port, fixtures: { users: [{ custom_id: 'U0' }] } });
    const resumed = await runCli(['resume', '--rate', '1000'], { cwd: dir, env: env(url) });
    expect(resumed.code).toBe(0);
    expect(statusCounts(dir)).toEqual({ ok: 200 });
    expect(applied(sandbox).size).toBe(200);
  });

  it('a port fetch refuses (6666) is not_sent, not "may have been applied"', async () => {
    const clock = fakeClock();
    const dir = tmpTree({ 'events.csv': events(2), 'job.yaml': EVENTS });
    const r = await runCli(['import', 'job.yaml', '--max-attempts', '1'], {
      cwd: dir,
      env: env('http://127.0.0.1:6666/api/public/'),
      clock,
    });
    expect(r.code).toBe(3);
    expect(report(dir).map((l) => [l.status, l.message])).toEqual([
      [
        'not_sent',
        'not sent: could not reach the API (fetch refuses to use this port, BAD_PORT) (gave up after 1 attempts)',
      ],
      [
        'not_sent',
        'not sent: a request was given up unsent (could not reach the API (fetch refuses to use this port, BAD_PORT) (gave up after 1 attempts)), and the run stopped so that no later row goes before it',
      ],
    ]);
  });
});

describe('8. bounded waits', () => {
  it.each(['99999', '3000000'])(
    'retry-after %s: the run stops at once (exit 3), rows not_sent, resume hint',
    async (wait) => {
      const url = await fakeServer((_req, res) =>
        res
          .writeHead(429, { 'retry-after': wait, 'content-type': 'application/json' })
          .end('{"detail":"Request was throttled."}'),
      );
      const dir = tmpTree({ 'events.csv': events(5), 'job.yaml': EVENTS });
      const clock = fakeClock();
      const r = await runCli(['import', 'job.yaml', '--rate', '1000'], { cwd: dir, env: env(url), clock });
      // Nothing waited for the pause asked: no sleep as long as --max-pause (300 s).
      expect(Math.max(0, ...clock.sleeps)).toBeLessThan(300_000);
      expect(r.code).toBe(3);
      expect(statusCounts(dir)).toEqual({ not_sent: 5 });
      expect(r.stderr).toMatch(/the API asked to pause \d+ s .*--max-pause 300 s.*resume with: engage-import resume/s);
      // That 429 is counted, and said as the give-up it is.
      expect(r.stderr).toMatch(/, 1 × 429, /);
      expect(r.stderr).toContain('gave up on POST /users-by-id/…/events/: the API asked to pause');
    },
  );

  it('a server that never answers: three timeouts in a row stop the run', async () => {
    const url = await fakeServer(() => undefined);
    const dir = tmpTree({ 'events.csv': events(30), 'job.yaml': EVENTS });
    const r = await runCli(['import', 'job.yaml', '--rate', '1000', '--concurrency', '1', '--request-timeout', '0.1'], {
      cwd: dir,
      env: env(url),
    });
    expect(r.code).toBe(3);
    expect(statusCounts(dir)).toEqual({ unknown: 3, not_sent: 27 });
    expect(r.stderr).toMatch(/3 requests in a row got no answer in time/);
  });
});

describe('9. 429s that never end', () => {
  it('a row given up after 50 throttles is not_sent and stops the run (exit 3), which stays resumable', async () => {
    const url = await fakeServer((_req, res) =>
      res
        .writeHead(429, { 'retry-after': '1', 'content-type': 'application/json' })
        .end('{"detail":"Request was throttled."}'),
    );
    const clock = fakeClock();
    const dir = tmpTree({ 'events.csv': events(2), 'job.yaml': EVENTS });
    const r = await runCli(['import', 'job.yaml', '--rate', '1000', '--concurrency', '1', '--quiet'], {
      cwd: dir,
      env: env(url),
      clock,
    });
    expect(r.code).toBe(3);
    expect(report(dir).map((l) => l.status)).toEqual(['not_sent', 'not_sent']);
    expect(report(dir)[0]!.message).toMatch(/^not sent: throttled 50 times \(HTTP 429\), gave up/);
    const again = await runCli(['resume', '--rate', '1000', '--quiet'], { cwd: dir, env: env(url), clock });
    expect(again.stderr).not.toContain('nothing to resume');
  });
});
