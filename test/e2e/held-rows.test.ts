/**
 * A row given up unsent (429s that never ended) stops the run, so that the rows that must come
 * after it wait: a later row of its key, and the rows of later stages that name it as their
 * parent. Sent, they would reach the API before it (a contact's older values applied last) or
 * without it (an event of a contact that does not exist yet, failed for good); held, a resume
 * sends them all in order.
 */
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { parse } from 'csv-parse/sync';
import { afterEach, describe, expect, it } from 'vitest';
import { startSandbox, type Sandbox } from '../../src/sandbox/index.js';
import { fakeClock } from '../transport/_fake-clock.js';
import { runCli } from '../helpers/run-cli.js';
import { tmpTree } from '../helpers/tmp.js';

let sandbox: Sandbox | undefined;
let proxy: Server | undefined;
afterEach(async () => {
  await sandbox?.close();
  sandbox = undefined;
  proxy?.closeAllConnections();
  await new Promise((r) => (proxy ? proxy.close(r) : r(undefined)));
  proxy = undefined;
});

/**
 * The sandbox behind a proxy that answers 429 (`retry-after: 0`) to every request whose path or
 * body holds `throttled.marker`, while `throttled.on`: the row is given up `not_sent` while the others go.
 */
async function throttlingProxy(
  target: Sandbox,
  throttled: { marker: string; on: boolean; retryAfter?: string; seen?: number },
): Promise<string> {
  proxy = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      if (throttled.on && `${req.url} ${body.toString()}`.includes(throttled.marker)) {
        throttled.seen = (throttled.seen ?? 0) + 1;
        res.writeHead(429, { 'retry-after': throttled.retryAfter ?? '0', 'content-type': 'application/json' });
        res.end('{"detail":"Request was throttled. Expected available in 0 seconds."}');
        return;
      }
      const headers = Object.fromEntries(
        Object.entries(req.headers).filter(([k]) => k !== 'host' && k !== 'content-length'),
      ) as Record<string, string>;
      void fetch(new URL(req.url ?? '/', target.url.replace(/\/api\/public\/$/, '')), {
        method: req.method ?? 'GET',
        headers,
        ...(body.length > 0 && { body }),
      }).then(async (answer) => {
        res.writeHead(answer.status, { 'content-type': answer.headers.get('content-type') ?? 'application/json' });
        res.end(Buffer.from(await answer.arrayBuffer()));
      });
    });
  });
  await new Promise<void>((r) => proxy!.listen(0, '127.0.0.1', r));
  return `http://127.0.0.1:${(proxy.address() as AddressInfo).port}/api/public/`;
}

const CONTACTS = 'resource: user\nsource: { file: contacts.csv }\nkey: id\nfields:\n  custom_id: id\n';

/** Contacts C-1 and C-2, and a `Visited` event per line of `events` (`eid,user`), events first in the job. */
const contactsAndEvents = (events: string) =>
  tmpTree({
    'contacts.csv': 'id\nC-1\nC-2\n',
    'contacts.yaml': CONTACTS,
    'events.csv': `eid,user\n${events}`,
    'events.yaml':
      'resource: event\nsource: { file: events.csv }\nkey: eid\nfields:\n  user_custom_id: user\n  name: { value: Visited }\n  data.eid: eid\n',
    'job.yaml': 'mappings: [events.yaml, contacts.yaml]\n',
  });

const report = (dir: string) =>
  (parse(readFileSync(join(dir, 'out/report.csv')), { columns: true }) as Record<string, string>[]).map((l) => [
    l.file,
    l.line,
    l.status,
    l.message,
  ]);

const STOPPED =
  'not sent: a request was given up unsent (throttled 50 times (HTTP 429), gave up: Request was throttled. Expected available in 0 seconds.), and the run stopped so that no later row goes before it';

describe('a row the run did not send stops the run, so that the rows that must come after it wait', () => {
  it.each(['1', '4'])(
    'a later row of its key: not_sent too, and a resume sends both in file order, so the account ends with the later values (--concurrency %s)',
    async (concurrency) => {
      sandbox = await startSandbox({ rate: 0 });
      const throttled = { marker: '"Old"', on: true };
      const url = await throttlingProxy(sandbox, throttled);
      const dir = tmpTree({
        'contacts.csv': 'id,name\nC-1,Old\nC-2,Other\nC-1,New\n',
        'contacts.yaml':
          'resource: user\nsource: { file: contacts.csv }\nkey: id\nfields:\n  custom_id: id\n  first_name: name\n',
      });
      const env = { ENGAGE_API_KEY: sandbox.apiKey, ENGAGE_BASE_URL: url };
      const clock = fakeClock();
      const first = await runCli(['import', 'contacts.yaml', '--rate', '1000', '--concurrency', concurrency], {
        cwd: dir,
        env,
        clock,
      });
      expect(first.code, first.stderr).toBe(3);
      expect(report(dir)).toEqual([
        ['contacts.csv', '2', 'not_sent', expect.stringMatching(/^not sent: throttled 50 times \(HTTP 429\), gave up/)],
        ['contacts.csv', '3', 'not_sent', STOPPED],
        // Queued behind line 2 when it was given up (4 at once), or read after the stop (1 at a time).
        ['contacts.csv', '4', 'not_sent', STOPPED],
      ]);
      expect(sandbox.state.users()).toEqual([]);

      throttled.on = false;
      const resumed = await runCli(['resume', '--rate', '1000'], { cwd: dir, env, clock });
      expect(resumed.code, resumed.stderr).toBe(0);
      expect(report(dir).map((l) => l[2])).toEqual(['ok', 'ok', 'ok']);
      expect(sandbox.state.users().map((u) => [u.custom_id, u.first_name])).toEqual([
        ['C-1', 'New'],
        ['C-2', 'Other'],
      ]);
    },
  );

  it('a child in a later stage: not_sent, not sent to fail for want of its parent; a resume sends the contact, then its event', async () => {
    sandbox = await startSandbox({ rate: 0 });
    const throttled = { marker: '"C-2"', on: true };
    const url = await throttlingProxy(sandbox, throttled);
    const dir = contactsAndEvents('E1,C-1\nE2,C-2\n');
    const env = { ENGAGE_API_KEY: sandbox.apiKey, ENGAGE_BASE_URL: url };
    const clock = fakeClock();
    const first = await runCli(['import', 'job.yaml', '--rate', '1000'], { cwd: dir, env, clock });
    expect(first.code, first.stderr).toBe(3);
    const lines = report(dir);
    expect(lines.filter((l) => l[0] === 'events.csv')).toEqual([
      ['events.csv', '2', 'not_sent', STOPPED],
      ['events.csv', '3', 'not_sent', STOPPED],
    ]);
    // No event reached the API.
    expect(sandbox.requests.filter((r) => r.path.includes('/events/'))).toEqual([]);

    throttled.on = false;
    const resumed = await runCli(['resume', '--rate', '1000'], { cwd: dir, env, clock });
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(report(dir).map((l) => l[2])).toEqual(['ok', 'ok', 'ok', 'ok']);
    expect(sandbox.state.eventOccurrences().map((e) => e.data)).toEqual([{ eid: 'E1' }, { eid: 'E2' }]);
  });

  it('a row still waiting out a 429 when the run is interrupted is not_sent, and the run is interrupted, not stopped fatally', async () => {
    sandbox = await startSandbox({ rate: 0 });
    const throttled = { marker: '"C-2"', on: true, retryAfter: '20', seen: 0 };
    const url = await throttlingProxy(sandbox, throttled);
    const dir = tmpTree({
      'contacts.csv': 'id\nC-1\nC-2\nC-3\n',
      'contacts.yaml': CONTACTS,
    });
    const controller = new AbortController();
    const timer = setInterval(() => throttled.seen > 0 && controller.abort('SIGINT'), 5);
    const r = await runCli(['import', 'contacts.yaml', '--rate', '1000', '--concurrency', '1', '--json', '--quiet'], {
      cwd: dir,
      env: { ENGAGE_API_KEY: sandbox.apiKey, ENGAGE_BASE_URL: url },
      signal: controller.signal,
    }).finally(() => clearInterval(timer));
    expect(r.code).toBe(130);
    expect(JSON.parse(r.stdout)).toMatchObject({ interrupted: 'SIGINT', fatal: false });
    expect(report(dir).map((l) => l[2])).toEqual(['ok', 'not_sent', 'not_sent']);
  });

  it('a bulk import whose status polls are given up (429s that never end) stops the run: no later stage goes, and a resume waits for it, then sends the rest', async () => {
    sandbox = await startSandbox({ rate: 0 });
    const throttled = { marker: 'import/status/', on: true };
    const url = await throttlingProxy(sandbox, throttled);
    const dir = contactsAndEvents('E1,C-1\n');
    const env = { ENGAGE_API_KEY: sandbox.apiKey, ENGAGE_BASE_URL: url };
    const clock = fakeClock();
    const first = await runCli(['import', 'job.yaml', '--rate', '1000', '--bulk', 'always'], { cwd: dir, env, clock });
    expect(first.code, first.stderr).toBe(3);
    expect(report(dir).map((l) => [l[0], l[2]])).toEqual([
      ['contacts.csv', 'unknown'],
      ['contacts.csv', 'unknown'],
      ['events.csv', 'not_sent'],
    ]);
    expect(sandbox.requests.filter((r) => r.path.includes('/events/'))).toEqual([]);
    throttled.on = false;
    const resumed = await runCli(['resume', '--rate', '1000'], { cwd: dir, env, clock });
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(report(dir).map((l) => l[2])).toEqual(['ok', 'ok', 'ok']);
    // The one upload was waited for again, not made twice.
    expect(sandbox.requests.filter((r) => r.method === 'POST' && r.path.endsWith('users/import/'))).toHaveLength(1);
  });
});
