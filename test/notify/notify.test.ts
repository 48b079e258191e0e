import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { afterEach, describe, expect, it } from 'vitest';
import { parseMaxFailed, withinMaxFailed } from '../../src/notify/max-failed.js';
import { sendNotification } from '../../src/notify/send-notification.js';
import { startSandbox, type Sandbox } from '../../src/sandbox/index.js';
import { runCli } from '../helpers/run-cli.js';
import { tmpTree } from '../helpers/tmp.js';

const ROOT = join(import.meta.dirname, '../..');
const SECRET_PATH = '/services/T000/B000/s3cr3t-webhook-token';

let sandbox: Sandbox | undefined;
let hook: Server | undefined;
const dirs: string[] = [];
afterEach(async () => {
  await sandbox?.close();
  sandbox = undefined;
  await new Promise<void>((done) => (hook ? hook.close(() => done()) : done()));
  hook = undefined;
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

/** A webhook receiver on loopback: answers `status` and keeps what it received. */
async function webhook(
  status: number,
): Promise<{ url: string; received: { path: string; body: Record<string, unknown> }[] }> {
  const received: { path: string; body: Record<string, unknown> }[] = [];
  hook = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      received.push({ path: req.url ?? '', body: JSON.parse(body) });
      res.writeHead(status).end();
    });
  });
  await new Promise<void>((done) => hook!.listen(0, '127.0.0.1', done));
  return { url: `http://127.0.0.1:${(hook.address() as AddressInfo).port}${SECRET_PATH}`, received };
}

/** The products sample (11 valid rows, 3 bad on purpose) imported into a fresh sandbox. */
async function importProducts(extra: string[], env: Record<string, string> = {}) {
  sandbox = await startSandbox({ rate: 0 });
  const out = tmpTree();
  dirs.push(out);
  return importProductsInto(out, extra, env);
}

/** The products sample imported into the running sandbox, with its report and state in `out`. */
function importProductsInto(out: string, extra: string[], env: Record<string, string> = {}) {
  return runCli(
    [
      'import',
      'mappings/products.yaml',
      '--base-url',
      sandbox!.url,
      '--report',
      join(out, 'report.csv'),
      '--state-dir',
      join(out, 'state'),
      '--rate',
      '1000',
      ...extra,
    ],
    { cwd: ROOT, env: { ENGAGE_API_KEY: sandbox!.apiKey, ...env } },
  );
}

describe('--notify-url', () => {
  it('POSTs the summary with a one-line text after a failed run; the URL is never printed in full', async () => {
    const { url, received } = await webhook(200);
    const r = await importProducts(['--notify-url', url]);
    expect(r.code).toBe(1);
    expect(received).toHaveLength(1);
    expect(received[0]!.path).toBe(SECRET_PATH);
    const body = received[0]!.body;
    expect(body['text']).toMatch(
      /^engage-import products\.yaml: rows not ok \(exit 1\): 14 rows, invalid 3, ok 11 in \d+ s; report .*report\.csv$/,
    );
    expect(String(body['text'])).not.toContain('\n');
    expect(body).toMatchObject({
      job: 'products.yaml',
      outcome: 'rows not ok',
      exit_code: 1,
      summary: { mode: 'live', totals: { ok: 11, invalid: 3 } },
    });
    expect((body['summary'] as { files: { errors: unknown[] }[] }).files[0]!.errors).toHaveLength(3);
    expect(r.stderr + r.stdout).not.toContain('s3cr3t');
  });

  it('ENGAGE_NOTIFY_URL works too; the default --notify-on failure stays silent after a run that exits 0', async () => {
    const { url, received } = await webhook(200);
    const r = await importProducts(['--max-failed', '3'], { ENGAGE_NOTIFY_URL: url });
    expect(r.code).toBe(0);
    expect(received).toEqual([]);
  });

  it('a webhook that answers 500 is a warning naming only its host; the exit code does not change', async () => {
    const { url, received } = await webhook(500);
    const r = await importProducts(['--notify-url', url, '--notify-on', 'always']);
    expect(r.code).toBe(1);
    expect(received).toHaveLength(1);
    const host = new URL(url).host;
    expect(r.stderr).toContain(
      `engage-import: warning: the notification was not delivered: http://${host} answered HTTP 500\n`,
    );
    expect(r.stderr).not.toContain('s3cr3t');
  });

  it('an unreachable webhook changes nothing either, and in json the warning is an event without the URL', async () => {
    const { url } = await webhook(200);
    await new Promise<void>((done) => hook!.close(() => done()));
    hook = undefined;
    const r = await importProducts(['--notify-url', url, '--log-format', 'json']);
    expect(r.code).toBe(1);
    const failed = r.stderr
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l))
      .find((l) => l.event === 'notify_failed');
    expect(failed).toMatchObject({
      level: 'warn',
      reason: expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+ could not be reached \(ECONNREFUSED\)$/),
    });
    expect(r.stderr).not.toContain('s3cr3t');
  });

  it('a malformed URL is a usage error before anything is sent, without repeating it', async () => {
    const r = await importProducts(['--notify-url', 'hooks.example.com/s3cr3t']);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe('engage-import: --notify-url is not a URL (expected https://…)\n');
    expect(sandbox!.requests).toEqual([]);
  });

  it('a run stopped early says why in the one-line text (a 401), never the key', async () => {
    const { url, received } = await webhook(200);
    const wrongKey = `wrong${'k'.repeat(59)}`;
    const r = await importProducts(['--notify-url', url], { ENGAGE_API_KEY: wrongKey });
    expect(r.code).toBe(3);
    expect(received).toHaveLength(1);
    expect(String(received[0]!.body['text'])).toMatch(/^engage-import products\.yaml: aborted: .*401.* \(exit 3\)/);
    expect(JSON.stringify(received[0]!.body)).not.toContain(wrongKey);
  });

  it('a URL with a user name and password is refused before anything is sent, without repeating it', async () => {
    const r = await importProducts(['--notify-url', 'https://hook:s3cr3t@hooks.example.com/x']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('--notify-url holds a user name or password (user:pass@host), which cannot be sent');
    expect(r.stderr).not.toContain('s3cr3t');
    expect(sandbox!.requests).toEqual([]);
  });
  it("a signal while the alert waits for a webhook that never answers ends the wait; the exit code stays the run's", async () => {
    let arrived = false;
    hook = createServer(() => {
      arrived = true; // never answers
    });
    await new Promise<void>((done) => hook!.listen(0, '127.0.0.1', done));
    const url = `http://127.0.0.1:${(hook.address() as AddressInfo).port}${SECRET_PATH}`;
    sandbox = await startSandbox({ rate: 0 });
    const out = tmpTree();
    dirs.push(out);
    const controller = new AbortController();
    const stop = setInterval(() => {
      if (arrived) controller.abort('SIGTERM');
    }, 1);
    const r = await runCli(
      ['import', 'mappings/products.yaml', '--base-url', sandbox.url, '--report', join(out, 'report.csv')].concat([
        '--state-dir',
        join(out, 'state'),
        '--rate',
        '1000',
        '--notify-url',
        url,
      ]),
      { cwd: ROOT, env: { ENGAGE_API_KEY: sandbox.apiKey }, signal: controller.signal },
    );
    clearInterval(stop);
    hook.closeAllConnections();
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('the notification was not delivered');
    expect(r.stderr).toContain('could not be reached (interrupted while waiting for it)');
    expect(r.stderr).not.toContain('s3cr3t');
  });
});

describe('sendNotification', () => {
  it('gives up on a webhook that never answers when its time is up, even after a garbage collection', async () => {
    hook = createServer(() => undefined); // takes the POST, never answers
    await new Promise<void>((done) => hook!.listen(0, '127.0.0.1', done));
    const url = new URL(`http://127.0.0.1:${(hook.address() as AddressInfo).port}${SECRET_PATH}`);
    // A collection while the alert waits (a long run's heap): a timeout signal held only weakly
    // would be gone, and the wait with it never end.
    setFlagsFromString('--expose-gc');
    const gc = runInNewContext('gc') as () => void;
    const sent = sendNotification(url, { text: 'x' }, { timeoutMs: 300 });
    await new Promise((r) => setTimeout(r, 50));
    gc();
    const outcome = await Promise.race([sent, new Promise((r) => setTimeout(() => r('still waiting'), 3_000))]);
    hook.closeAllConnections();
    expect(outcome).toEqual({ ok: false, reason: `${url.origin} could not be reached (no answer in time)` });
  });
});

describe('--max-failed', () => {
  it.each([
    [['--max-failed', '3'], 0],
    [['--max-failed', '2'], 1],
    [['--max-failed', '25%'], 0],
    [['--max-failed', '20%'], 1],
  ])('%j → exit %d (3 of 14 rows not ok), and the summary still lists them', async (extra, code) => {
    const { url, received } = await webhook(200);
    const r = await importProducts([...extra, '--notify-url', url, '--notify-on', 'always']);
    expect(r.code).toBe(code);
    expect(r.stderr).toContain('invalid 3');
    expect(r.stderr).toContain('1 × custom_id: is required (line 14)');
    expect(received[0]!.body['outcome']).toBe(
      code === 0 ? `ok: 3 rows not ok, within --max-failed ${extra[1] === '3' ? '3 rows' : extra[1]}` : 'rows not ok',
    );
  });

  it('counts only rows that did not end well: unchanged rows of an incremental run are not failures', async () => {
    sandbox = await startSandbox({ rate: 0 });
    const out = tmpTree();
    dirs.push(out);
    const run = () => importProductsInto(out, ['--incremental', '--max-failed', '3']);
    expect((await run()).code).toBe(0);
    // Night 2: the same file, 11 rows unchanged and the same 3 invalid ones.
    const night2 = await run();
    expect(night2.stderr).toContain('unchanged 11');
    expect(night2.stderr).toContain('Exit 0: 3 rows not ok, within --max-failed 3 rows');
    expect(night2.code).toBe(0);
  });

  it('parses N and P%, refuses anything else', () => {
    expect(parseMaxFailed('5')).toEqual({ kind: 'count', rows: 5 });
    expect(parseMaxFailed('0.5%')).toEqual({ kind: 'percent', percent: 0.5 });
    expect(() => parseMaxFailed('-1')).toThrow(
      '--max-failed must be a number of rows (3) or a percentage of the rows (0.5%), got "-1"',
    );
    expect(() => parseMaxFailed('101%')).toThrow();
    expect(withinMaxFailed({ kind: 'percent', percent: 0.5 }, 5, 1000)).toBe(true);
    expect(withinMaxFailed({ kind: 'percent', percent: 0.5 }, 6, 1000)).toBe(false);
    expect(withinMaxFailed({ kind: 'percent', percent: 0.003 }, 3, 100_000)).toBe(true);
  });
});
