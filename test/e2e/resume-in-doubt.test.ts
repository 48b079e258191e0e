import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import Database from 'better-sqlite3';
import { join } from 'node:path';
import { parse } from 'csv-parse/sync';
import { afterEach, describe, expect, it } from 'vitest';
import { startSandbox, type Sandbox } from '../../src/sandbox/index.js';
import { EVENTS_MAPPING as EVENTS } from '../helpers/events-job.js';
import { runCli } from '../helpers/run-cli.js';
import { tmpTree } from '../helpers/tmp.js';

let sandbox: Sandbox | undefined;
afterEach(async () => {
  await sandbox?.close();
  sandbox = undefined;
});

const report = (dir: string) =>
  parse(readFileSync(join(dir, 'out/report.csv')), { columns: true }) as Record<string, string>[];
const statuses = (dir: string) => report(dir).map((r) => `${r.key}:${r.status}`);
/** How many times each event id was applied by the server (429s are refusals, not applications). */
const applied = (s: Sandbox) => {
  const counts: Record<string, number> = {};
  for (const q of s.requests) {
    const id = (q.body as { data?: { id?: string } } | undefined)?.data?.id;
    if (id !== undefined && q.status !== 429) counts[id] = (counts[id] ?? 0) + 1;
  }
  return counts;
};
/** Aborts `controller` as soon as `ready()` holds, after `delayMs`. */
function abortWhen(controller: AbortController, ready: () => boolean, delayMs = 0): () => void {
  const timer = setInterval(() => {
    if (!ready()) return;
    clearInterval(timer);
    setTimeout(() => controller.abort('SIGINT'), delayMs);
  }, 1);
  return () => clearInterval(timer);
}

describe('rows in doubt survive an interrupted resend', () => {
  it('resume --resend-unknown stopped by Ctrl-C keeps the unsent rows unknown, and the run resumable', async () => {
    // Every answer is lost after the write: all three rows end `unknown`.
    sandbox = await startSandbox({ rate: 0, dropRate: 1, fixtures: { users: [{ custom_id: 'U0' }] } });
    const dir = tmpTree({ 'events.csv': 'id,user\nE0,U0\nE1,U0\nE2,U0\n', 'job.yaml': EVENTS });
    const env = { ENGAGE_API_KEY: sandbox.apiKey, ENGAGE_BASE_URL: sandbox.url };
    expect((await runCli(['import', 'job.yaml', '--rate', '1000'], { cwd: dir, env })).code).toBe(1);
    expect(statuses(dir)).toEqual(['E0:unknown', 'E1:unknown', 'E2:unknown']);
    sandbox.setFaults({ dropRate: 0 });

    // The resend at 0.5 req/s: Ctrl-C 300 ms after the first request, while the next one waits its turn.
    const before = sandbox.requests.length;
    const controller = new AbortController();
    const stop = abortWhen(controller, () => sandbox!.requests.length > before, 300);
    const resend = await runCli(['resume', '--resend-unknown', '--rate', '0.5'], {
      cwd: dir,
      env,
      signal: controller.signal,
    });
    stop();
    expect(resend.code).toBe(130);
    expect(statuses(dir)).toEqual(['E0:ok', 'E1:unknown', 'E2:unknown']);
    const messages = report(dir).map((r) => r.message);
    // Both waited for their turn (concurrency 4) when Ctrl-C came: their first answer is still lost.
    for (const m of messages.slice(1))
      expect(m).toMatch(/^no answer received .*; resending it was stopped: not sent: the run was interrupted$/);

    // The run is still open, and its rows are still in doubt: a plain resume sends nothing.
    const sent = sandbox.requests.length;
    const plain = await runCli(['resume', '--rate', '1000'], { cwd: dir, env });
    expect(plain.code).toBe(1);
    expect(plain.stderr).not.toMatch(/finished already/);
    expect(statuses(dir)).toEqual(['E0:ok', 'E1:unknown', 'E2:unknown']);
    expect(sandbox.requests.length).toBe(sent);

    // The user checked the account and asks for the resend: exactly those two go.
    const again = await runCli(['resume', '--resend-unknown', '--rate', '1000'], { cwd: dir, env });
    expect(again.code).toBe(0);
    expect(statuses(dir)).toEqual(['E0:ok', 'E1:ok', 'E2:ok']);
    expect(sandbox.requests.length - sent).toBe(2);
    // Each resent event's line says what a resend of an event may have done.
    for (const line of report(dir))
      expect(line.message).toContain(
        'resent while in doubt (--resend-unknown): if the earlier send was applied too, the account has it twice; check it',
      );
  });

  it('a row that only ever got 429 before Ctrl-C is not_sent, not unknown, and the resume sends it once', async () => {
    sandbox = await startSandbox({ rate: 3 });
    const lines = ['id,user', ...Array.from({ length: 30 }, (_, i) => `E${i},${i % 3}`)];
    const dir = tmpTree({
      'events.csv': `${lines.join('\n')}\n`,
      'events.yaml': EVENTS,
      'contacts.csv': 'custom_id\n0\n1\n2\n',
      'contacts.yaml':
        'resource: user\nsource: { file: contacts.csv }\nkey: custom_id\nfields: { custom_id: custom_id }\n',
      'job.yaml': 'mappings: [events.yaml, contacts.yaml]\n',
    });
    const env = { ENGAGE_API_KEY: sandbox.apiKey, ENGAGE_BASE_URL: sandbox.url };
    const controller = new AbortController();
    const stop = abortWhen(controller, () => sandbox!.requests.filter((q) => q.status === 429).length >= 2);
    const first = await runCli(['import', 'job.yaml', '--rate', '100'], { cwd: dir, env, signal: controller.signal });
    stop();
    expect(first.code).toBe(130);
    expect(statuses(dir).filter((s) => s.endsWith(':unknown'))).toEqual([]);

    const resumed = await runCli(['resume', '--rate', '2'], { cwd: dir, env });
    expect(resumed.code).toBe(0);
    expect(new Set(statuses(dir).map((s) => s.split(':')[1]))).toEqual(new Set(['ok']));
    // Every event reached the server exactly once.
    const counts = applied(sandbox);
    expect(Object.keys(counts)).toHaveLength(30);
    expect(Object.values(counts).every((n) => n === 1)).toBe(true);
  }, 30_000);
});

describe('a resume refuses a damaged sync state before it opens the run', () => {
  it('sends nothing, and a refused --resend-unknown leaves the finished run finished', async () => {
    // Day 1: E0 accepted; E1's answer is lost, so E1 is in doubt (unknown) and the run finishes.
    sandbox = await startSandbox({ rate: 0, fixtures: { users: [{ custom_id: 'U0' }] } });
    const dir = tmpTree({ 'events.csv': 'id,user\nE0,U0\n', 'job.yaml': EVENTS });
    const env = { ENGAGE_API_KEY: sandbox.apiKey, ENGAGE_BASE_URL: sandbox.url };
    const nightly = ['import', 'job.yaml', '--incremental', '--rate', '1000'];
    expect((await runCli(nightly, { cwd: dir, env })).code).toBe(0);
    sandbox.setFaults({ dropRate: 1 });
    writeFileSync(join(dir, 'events.csv'), 'id,user\nE0,U0\nE1,U0\n');
    expect((await runCli(nightly, { cwd: dir, env })).code).toBe(1);
    expect(statuses(dir)).toEqual(['E0:already_sent', 'E1:unknown']);
    sandbox.setFaults({ dropRate: 0 });

    // The state is damaged: one stored identity breaks its CHECK (32 bytes).
    const [stateFile] = readdirSync(join(dir, '.engage-import/sync')).filter((f) => f.endsWith('.sqlite'));
    const db = new Database(join(dir, '.engage-import/sync', stateFile!));
    db.pragma('ignore_check_constraints = ON');
    db.prepare(`UPDATE events SET identity = x'00' WHERE run_id NOT LIKE 'doubt:%'`).run();
    db.close();

    const sent = sandbox.requests.length;
    const resend = await runCli(['resume', '--resend-unknown', '--rate', '1000'], { cwd: dir, env });
    expect(resend.code).toBe(2);
    expect(resend.stderr).toContain('is damaged');
    expect(sandbox.requests.length).toBe(sent);
    // The refused resend did not reopen the run: a new run is not told to resume one first.
    const next = await runCli(nightly, { cwd: dir, env });
    expect(next.stderr).not.toContain('an unfinished run of this job');
    expect(next.stderr).toContain('is damaged');
    expect(sandbox.requests.length).toBe(sent);
  });
});

describe('an event in doubt is not resent by a later run without --incremental either', () => {
  it('reports it unknown with the run that left it in doubt, and sends the other rows', async () => {
    sandbox = await startSandbox({ rate: 0, dropRate: 1, fixtures: { users: [{ custom_id: 'U0' }] } });
    const dir = tmpTree({ 'events.csv': 'id,user\nE0,U0\n', 'job.yaml': EVENTS });
    const env = { ENGAGE_API_KEY: sandbox.apiKey, ENGAGE_BASE_URL: sandbox.url };
    const plain = ['import', 'job.yaml', '--rate', '1000'];
    expect((await runCli(plain, { cwd: dir, env })).code).toBe(1);
    expect(statuses(dir)).toEqual(['E0:unknown']);
    sandbox.setFaults({ dropRate: 0 });

    writeFileSync(join(dir, 'events.csv'), 'id,user\nE0,U0\nE1,U0\n');
    const next = await runCli(plain, { cwd: dir, env });
    expect(next.code).toBe(1);
    expect(statuses(dir)).toEqual(['E0:unknown', 'E1:ok']);
    expect(report(dir)[0]!.message).toMatch(
      /^in doubt since run \S+ at \S+ \(a 5xx, a lost answer, or the run stopped while it was in flight\): it may have been recorded/,
    );
    expect(applied(sandbox)).toEqual({ E0: 1, E1: 1 });

    // A plain `resume --resend-unknown` finds the newest run, which has no doubt of its own: it
    // names the run that holds E0's, and that command resends it once.
    const runs = readdirSync(join(dir, '.engage-import', 'runs')).sort();
    const newest = await runCli(['resume', '--resend-unknown', '--rate', '1000'], { cwd: dir, env });
    expect(newest.code, newest.stderr).toBe(0);
    const command = `engage-import resume --resend-unknown .engage-import/runs/${runs[0]}`;
    expect(newest.stderr).toContain(`'${command}' (1 event)`);
    // That run's input as it was (else the report's messages give the `state forget` command).
    writeFileSync(join(dir, 'events.csv'), 'id,user\nE0,U0\n');
    const resent = await runCli([...command.split(' ').slice(1), '--rate', '1000'], { cwd: dir, env });
    expect(resent.code, resent.stderr).toBe(0);
    expect(applied(sandbox)).toEqual({ E0: 2, E1: 1 });
  });
});
