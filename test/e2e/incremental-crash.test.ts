import { readdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'csv-parse/sync';
import { describe, expect, it } from 'vitest';
import { mulberry32, startSandbox, type Sandbox } from '../../src/sandbox/index.js';
import { runCli } from '../helpers/run-cli.js';
import { exited, spawnCli } from '../helpers/spawn-cli.js';
import { tmpTree } from '../helpers/tmp.js';

function writeDay(dir: string, events: number, changed: boolean): void {
  const contacts = ['custom_id,email'];
  for (let i = 0; i < 20; i++) contacts.push(`C-${i},c${i}${changed && i % 5 === 0 ? '.new' : ''}@example.com`);
  writeFileSync(join(dir, 'contacts.csv'), `${contacts.join('\n')}\n`);
  const lines = ['row,customer,event'];
  for (let i = 0; i < events; i++) lines.push(`R-${i},C-${i % 20},Order Placed`);
  writeFileSync(join(dir, 'events.csv'), `${lines.join('\n')}\n`);
}

function writeJob(dir: string): void {
  writeFileSync(
    join(dir, 'contacts.yaml'),
    'resource: user\nsource: { file: contacts.csv }\nkey: custom_id\nfields: { custom_id: custom_id, email: email }\n',
  );
  writeFileSync(
    join(dir, 'events.yaml'),
    'resource: event\nsource: { file: events.csv }\nkey: row\nfields:\n  user_custom_id: customer\n  name: event\n  data.row: row\n',
  );
  writeFileSync(join(dir, 'job.yaml'), 'sync: incremental\nmappings: [contacts.yaml, events.yaml]\n');
}

const common = (dir: string, name: string) => [
  '--report',
  join(dir, `${name}.csv`),
  '--state-dir',
  'state',
  '--concurrency',
  '6',
  '--rate',
  '1000',
  '--quiet',
];
const reportOf = (dir: string, name: string) =>
  parse(readFileSync(join(dir, `${name}.csv`)), { columns: true }) as Record<string, string>[];

/** Events the sandbox applied, by their row. */
function appliedEvents(sandbox: Sandbox): Map<string, number> {
  const applied = new Map<string, number>();
  for (const q of sandbox.requests) {
    const row = (q.body as { data?: { row?: string } } | undefined)?.data?.row;
    if (q.applied && typeof row === 'string') applied.set(row, (applied.get(row) ?? 0) + 1);
  }
  return applied;
}

/** The row of each event request the sandbox received from `from` on. */
const eventRowsSince = (sandbox: Sandbox, from: number) =>
  sandbox.requests
    .slice(from)
    .map((q) => (q.body as { data?: { row?: string } } | undefined)?.data?.row)
    .filter((r): r is string => r !== undefined);

describe('incremental runs: kill -9 during day 2, resume, then day 3 with the same files', () => {
  it.each([7, 19, 31])(
    'seed %d: an event in flight at the kill stays unknown across runs and is sent again only by --resend-unknown',
    async (seed) => {
      const random = mulberry32(seed);
      const dir = tmpTree();
      writeJob(dir);
      const sandbox = await startSandbox({ port: 0, rate: 0, latencyMs: 15, jitterMs: 8, seed });
      const env = { ENGAGE_API_KEY: sandbox.apiKey, ENGAGE_BASE_URL: sandbox.url };
      try {
        writeDay(dir, 60, false);
        const day1 = await runCli(['import', 'job.yaml', ...common(dir, 'day1')], { cwd: dir, env });
        expect(day1.code).toBe(0);
        const afterDay1 = sandbox.requests.length;

        // Day 2: 4 contacts changed and 120 new events; killed right after a seeded event request
        // arrived (its answer is 7 ms or more away): that event was recorded but never answered.
        writeDay(dir, 180, true);
        const killAt = afterDay1 + 5 + Math.floor(random() * 110);
        const child = spawnCli(['import', 'job.yaml', ...common(dir, 'day2')], {
          cwd: dir,
          env: { ...process.env, ...env },
        });
        let gone = false;
        const exit = exited(child).then(() => (gone = true));
        while (!gone) {
          await new Promise((r) => setTimeout(r, 3));
          if (sandbox.requests.length >= killAt) child.kill('SIGKILL');
        }
        await exit;
        expect(child.signalCode).toBe('SIGKILL');
        const inFlight = eventRowsSince(sandbox, killAt - 1)[0];
        expect(inFlight).toBeDefined();

        // Not resumed: the next run of the job is refused while day 2 is unfinished, and sends nothing.
        const beforeRefused = sandbox.requests.length;
        const refused = await runCli(['import', 'job.yaml', ...common(dir, 'refused')], { cwd: dir, env });
        expect(refused.code).not.toBe(0);
        expect(refused.code).not.toBe(1);
        expect(refused.stderr).toMatch(
          /an unfinished run of this job is in (\S+): continue it with 'engage-import resume \1 --report refused\.csv'/,
        );
        expect(sandbox.requests.length).toBe(beforeRefused);

        let resumed = await runCli(['resume', ...common(dir, 'resume')], { cwd: dir, env });
        if (resumed.code !== 0 && resumed.code !== 1)
          resumed = await runCli(['resume', ...common(dir, 'resume')], { cwd: dir, env });
        expect([0, 1]).toContain(resumed.code);
        const afterResume = sandbox.requests.length;
        const unknown = new Set(
          reportOf(dir, 'resume')
            .filter((l) => l.status === 'unknown')
            .map((l) => l.key ?? ''),
        );
        expect(unknown).toContain(inFlight);
        // The resume resent none of the rows it reports unknown.
        expect(eventRowsSince(sandbox, beforeRefused).filter((r) => unknown.has(r))).toEqual([]);

        // Day 3, same files: nothing to send. The rows in doubt stay unknown (never resent silently).
        const day3 = await runCli(['import', 'job.yaml', ...common(dir, 'day3')], { cwd: dir, env });
        expect(day3.code).toBe(1);
        expect(sandbox.requests.length).toBe(afterResume);
        const day3Events = reportOf(dir, 'day3').filter((l) => l.resource === 'event');
        expect(day3Events.filter((l) => l.status === 'unknown').map((l) => l.key)).toEqual(
          [...unknown].sort((a, b) => Number(a.slice(2)) - Number(b.slice(2))),
        );
        expect(day3Events.find((l) => l.key === inFlight)?.message).toMatch(
          /engage-import resume state\/runs\/\S+ --resend-unknown, or/,
        );
        expect(day3Events.filter((l) => l.status === 'already_sent')).toHaveLength(180 - unknown.size);
        expect(
          reportOf(dir, 'day3')
            .filter((l) => l.resource === 'user')
            .map((l) => l.status),
        ).toEqual(Array(20).fill('unchanged'));
        // Every event was recorded once at most; only one in doubt may be missing (its request may not have left).
        const applied = appliedEvents(sandbox);
        expect([...applied].filter(([, n]) => n !== 1)).toEqual([]);
        expect(applied.size + [...unknown].filter((r) => !applied.has(r)).length).toBe(180);

        // The user checked the account and resends day 2's rows in doubt: each is sent once more, then accepted.
        const runs = readdirSync(join(dir, 'state', 'runs'))
          .filter((n) => !n.startsWith('.'))
          .sort();
        const resend = await runCli(
          ['resume', join('state', 'runs', runs[1]!), '--resend-unknown', ...common(dir, 'resend')],
          {
            cwd: dir,
            env,
          },
        );
        expect(resend.code).toBe(0);
        expect(eventRowsSince(sandbox, afterResume).sort()).toEqual([...unknown].sort());
        expect(
          reportOf(dir, 'resend')
            .filter((l) => unknown.has(l.key ?? ''))
            .map((l) => l.status),
        ).toEqual(Array(unknown.size).fill('ok'));
        const afterResend = sandbox.requests.length;
        const day4 = await runCli(['import', 'job.yaml', ...common(dir, 'day4')], { cwd: dir, env });
        expect(day4.code).toBe(0);
        expect(sandbox.requests.length).toBe(afterResend);
        expect(
          reportOf(dir, 'day4')
            .filter((l) => l.resource === 'event')
            .map((l) => l.status),
        ).toEqual(Array(180).fill('already_sent'));
      } finally {
        await sandbox.close();
      }
    },
    120_000,
  );
});

describe('incremental runs: kill -9, then the run folder moved away instead of resumed', () => {
  it('the next run sends again at most the event that was in flight: the state kept every accepted one', async () => {
    const dir = tmpTree();
    writeJob(dir);
    // 20 ms an answer, one at a time: about 50 events a second, so a state applied once a second
    // would miss dozens of accepted events at the kill.
    const sandbox = await startSandbox({ port: 0, rate: 0, latencyMs: 20 });
    const env = { ENGAGE_API_KEY: sandbox.apiKey, ENGAGE_BASE_URL: sandbox.url };
    try {
      writeDay(dir, 200, false);
      // One request at a time: only one event is ever in flight.
      const oneAtATime = common(dir, 'day1').map((a) => (a === '6' ? '1' : a));
      const run = spawnCli(['import', 'job.yaml', ...oneAtATime], { cwd: dir, env: { ...process.env, ...env } });
      while (eventRowsSince(sandbox, 0).length < 60) await new Promise((r) => setTimeout(r, 5));
      run.kill('SIGKILL');
      await exited(run);
      const runs = join(dir, 'state', 'runs');
      // Moved away, as the refusal of an unfinished run offers, without running the job first.
      for (const id of readdirSync(runs)) renameSync(join(runs, id), join(dir, `parked-${id}`));

      const next = await runCli(['import', 'job.yaml', ...common(dir, 'day1b')], { cwd: dir, env });
      expect(next.code, next.stderr).toBe(0);
      const twice = [...appliedEvents(sandbox).values()].filter((n) => n > 1);
      expect(twice.length).toBeLessThanOrEqual(1);
      expect(appliedEvents(sandbox).size).toBe(200);
    } finally {
      await sandbox.close();
    }
  }, 60_000);
});
