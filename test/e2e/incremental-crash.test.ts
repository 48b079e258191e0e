import { spawn, type ChildProcess } from 'node:child_process';
import { createRequire } from 'node:module';
import { readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parse } from 'csv-parse/sync';
import { describe, expect, it } from 'vitest';
import { mulberry32, startSandbox, type Sandbox } from '../../src/sandbox/index.js';
import { runCli } from '../helpers/run-cli.js';
import { tmpTree } from '../helpers/tmp.js';

const ROOT = resolve(import.meta.dirname, '../..');
const TSX = pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href;

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
const exited = (child: ChildProcess) => new Promise<number | null>((r) => child.once('exit', (code) => r(code)));

/** Events the sandbox applied, by their row. */
function appliedEvents(sandbox: Sandbox): Map<string, number> {
  const applied = new Map<string, number>();
  for (const q of sandbox.requests) {
    const row = (q.body as { data?: { row?: string } } | undefined)?.data?.row;
    if (q.applied && typeof row === 'string') applied.set(row, (applied.get(row) ?? 0) + 1);
  }
  return applied;
}

describe('incremental runs: kill -9 during day 2, resume, then day 3 with the same files', () => {
  it.each([7, 19, 31])(
    'seed %d: no event is applied twice unless reported unknown, and day 3 sends only rows not accepted',
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

        // Day 2: 4 contacts changed and 120 new events; killed after a seeded number of its requests.
        writeDay(dir, 180, true);
        const killAt = afterDay1 + 1 + Math.floor(random() * 110);
        const child = spawn(
          process.execPath,
          ['--import', TSX, join(ROOT, 'src/cli/bin.ts'), 'import', 'job.yaml', ...common(dir, 'day2')],
          { cwd: dir, env: { ...process.env, ...env }, stdio: 'ignore' },
        );
        let gone = false;
        const exit = exited(child).then(() => (gone = true));
        while (!gone) {
          await new Promise((r) => setTimeout(r, 3));
          if (sandbox.requests.length >= killAt) child.kill('SIGKILL');
        }
        await exit;
        expect(child.signalCode).toBe('SIGKILL');
        let resumed = await runCli(['resume', ...common(dir, 'resume')], { cwd: dir, env });
        if (resumed.code !== 0 && resumed.code !== 1)
          resumed = await runCli(['resume', ...common(dir, 'resume')], { cwd: dir, env });
        expect([0, 1]).toContain(resumed.code);
        const afterResume = sandbox.requests.length;

        const day3 = await runCli(['import', 'job.yaml', ...common(dir, 'day3')], { cwd: dir, env });
        expect([0, 1]).toContain(day3.code);
        const unknown = new Set(
          [...reportOf(dir, 'resume'), ...reportOf(dir, 'day3')]
            .filter((l) => l.status === 'unknown')
            .map((l) => l.key),
        );
        const duplicated = [...appliedEvents(sandbox)]
          .filter(([row, n]) => n > 1 && !unknown.has(row))
          .map(([row]) => row);
        expect(duplicated).toEqual([]);
        // Every event ends accepted once; day 3 sends only what was in doubt after the resume.
        expect(appliedEvents(sandbox).size).toBe(180);
        const day3Sent = sandbox.requests
          .slice(afterResume)
          .map((q) => (q.body as { data?: { row?: string } } | undefined)?.data?.row);
        expect(day3Sent.filter((r) => r === undefined || !unknown.has(r))).toEqual([]);
        expect(
          reportOf(dir, 'day3')
            .filter((l) => l.resource === 'user')
            .map((l) => l.status),
        ).toEqual(Array(20).fill('unchanged'));
      } finally {
        await sandbox.close();
      }
    },
    120_000,
  );
});
