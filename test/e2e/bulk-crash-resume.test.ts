/**
 * kill -9 of a real importer process while it polls a bulk import, then `resume`: the import
 * whose id the ledger recorded is polled, not uploaded again; the chunk never uploaded goes now;
 * every input row ends with exactly one report line and its own status.
 */
import { existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'csv-parse/sync';
import { afterEach, describe, expect, it } from 'vitest';
import { startSandbox, type Sandbox } from '../../src/sandbox/index.js';
import { importsEnded } from '../helpers/imports-ended.js';
import { exited, spawnCli } from '../helpers/spawn-cli.js';
import { tmpTree } from '../helpers/tmp.js';

let sandbox: Sandbox | undefined;
afterEach(async () => {
  await sandbox?.close();
  sandbox = undefined;
});

/** A job of contacts C-<n> (custom_id and email) by number. */
function contactsJob(numbers: readonly number[]): string {
  const rows = ['customer_id,email', ...numbers.map((n) => `C-${n},c${n}@example.com`)];
  return tmpTree({
    'contacts.csv': `${rows.join('\n')}\n`,
    'contacts.yaml':
      'resource: user\nsource: { file: contacts.csv }\nkey: customer_id\nfields: { custom_id: customer_id, email: email }\n',
    'job.yaml': 'mappings: [contacts.yaml]\n',
  });
}

/** Contacts C-1…C-3 (custom_id and email) and one event of C-3, the events listed first (they are sent last). */
function contactsAndTheirEvent(): string {
  return tmpTree({
    'contacts.csv': 'customer_id,email\nC-1,c1@example.com\nC-2,c2@example.com\nC-3,c3@example.com\n',
    'contacts.yaml':
      'resource: user\nsource: { file: contacts.csv }\nkey: customer_id\nfields: { custom_id: customer_id, email: email }\n',
    'events.csv': 'id,customer\nE1,C-3\n',
    'events.yaml':
      'resource: event\nsource: { file: events.csv }\nkey: id\nfields:\n  user_custom_id: customer\n  name: { value: Visited }\n',
    'job.yaml': 'mappings: [events.yaml, contacts.yaml]\n',
  });
}

/** The report's lines as `key:status`. */
const keyStatuses = (dir: string) =>
  (parse(readFileSync(join(dir, 'report.csv')), { columns: true }) as Record<string, string>[]).map(
    (l) => `${l.key}:${l.status}`,
  );

/** The CLI in its own process, its stderr readable. */
const importer = (args: string[], env: NodeJS.ProcessEnv, cwd: string) => spawnCli(args, { cwd, env, stderr: 'pipe' });

describe('bulk import: kill -9 while polling, then resume', () => {
  it('polls the recorded import instead of uploading it again, uploads the rest, reports every row once', async () => {
    const lines = ['customer_id,email,tier,shoe_size'];
    for (let i = 0; i < 600; i++) lines.push(`C-${i},c${i}@example.com,gold,${i % 20 === 3 ? '42' : ''}`);
    const dir = tmpTree({
      'contacts.csv': `${lines.join('\n')}\n`,
      'contacts.yaml':
        'resource: user\nsource: { file: contacts.csv }\nkey: customer_id\nfields:\n  custom_id: customer_id\n  email: email\n  tier: tier\n  shoe_size: shoe_size\n',
      'job.yaml': 'mappings: [contacts.yaml]\n',
    });
    // 300 rows at 150 rows/s: each import runs 2 s, so the importer is killed while it polls the first.
    sandbox = await startSandbox({ port: 0, rate: 0, bulkRowsPerS: 150, fixtures: { userAttributes: ['tier'] } });
    const env = { ...process.env, ENGAGE_API_KEY: sandbox.apiKey, ENGAGE_BASE_URL: sandbox.url };
    const common = [
      '--report',
      'report.csv',
      '--state-dir',
      'state',
      '--rate',
      '1000',
      '--quiet',
      '--bulk',
      'always',
      '--bulk-chunk-rows',
      '300',
    ];
    const polls = () => sandbox!.requests.filter((q) => q.method === 'GET' && q.path.includes('import/status')).length;
    const uploads = () => sandbox!.requests.filter((q) => q.method === 'POST' && q.path.endsWith('users/import/'));

    const first = importer(['import', 'job.yaml', ...common], env, dir);
    const firstExit = exited(first);
    while (polls() === 0 && first.exitCode === null) await new Promise((r) => setTimeout(r, 5));
    first.kill('SIGKILL');
    expect(await firstExit).toBe(null);
    expect(uploads()).toHaveLength(1);

    const second = importer(['resume', ...common], env, dir);
    let stderr = '';
    second.stderr?.on('data', (c: Buffer) => (stderr += c.toString()));
    expect(await exited(second), stderr).toBe(1); // some rows failed, as they should

    // The first chunk went once (the resume polled its import); the second went in the resume.
    expect(uploads()).toHaveLength(2);
    const report = parse(readFileSync(join(dir, 'report.csv')), { columns: true }) as Record<string, string>[];
    expect(report.map((l) => Number(l.line))).toEqual(Array.from({ length: 600 }, (_, i) => i + 2));
    expect(report.filter((l) => l.status === 'failed').map((l) => l.key)).toEqual(
      Array.from({ length: 30 }, (_, k) => `C-${k * 20 + 3}`),
    );
    expect(report.filter((l) => l.status === 'ok')).toHaveLength(570);
    expect(sandbox.state.users()).toHaveLength(570);
  }, 60_000);
});

describe('bulk import: a resend of rows in doubt whose upload is refused', () => {
  it('keeps them unknown, in the report and in the ledger, rather than not_sent', async () => {
    const dir = contactsJob([1, 2]);
    // An import of 1 row/s outlives --bulk-timeout (0.01 min): both rows end unknown.
    sandbox = await startSandbox({ port: 0, rate: 0, bulkRowsPerS: 1 });
    const { apiKey, url } = sandbox;
    const env = { ...process.env, ENGAGE_API_KEY: apiKey, ENGAGE_BASE_URL: url };
    const common = ['--report', 'report.csv', '--state-dir', 'state', '--rate', '1000', '--quiet', '--bulk', 'always'];
    const statuses = () =>
      (parse(readFileSync(join(dir, 'report.csv')), { columns: true }) as Record<string, string>[]).map(
        (l) => `${l.key}:${l.status}`,
      );
    expect(await exited(importer(['import', 'job.yaml', ...common, '--bulk-timeout', '0.01'], env, dir))).toBe(3);
    expect(statuses()).toEqual(['C-1:unknown', 'C-2:unknown']);

    // Its chunk file is gone (cleaned up by hand): the resend cannot join the import it timed
    // out on, so it uploads the rows again (an upsert), and the service now refuses the key (401).
    const runs = join(dir, 'state', 'runs');
    for (const run of readdirSync(runs)) rmSync(join(runs, run, 'bulk'), { recursive: true, force: true });
    const port = Number(new URL(url).port);
    await sandbox.close();
    sandbox = await startSandbox({ port, rate: 0, apiKey: `${apiKey.slice(0, -4)}XXXX` });
    expect(await exited(importer(['resume', '--resend-unknown', ...common], env, dir))).toBe(3);
    expect(sandbox.requests.filter((q) => q.method === 'POST' && q.path.endsWith('users/import/'))).toHaveLength(1);
    expect(statuses()).toEqual(['C-1:unknown', 'C-2:unknown']);
    // Still in doubt in the ledger: a plain resume reports them unknown again, and sends nothing.
    const sent = sandbox.requests.length;
    await exited(importer(['resume', ...common], env, dir));
    expect(statuses()).toEqual(['C-1:unknown', 'C-2:unknown']);
    expect(sandbox.requests.length).toBe(sent);
  });
});

describe('bulk import: kill -9 while an upload waits for its answer, then resume', () => {
  it('uploads the rows again in a new chunk and leaves no chunk file behind, not even the one it was filling', async () => {
    const dir = contactsJob(Array.from({ length: 20 }, (_, i) => i));
    // Every answer takes 4 s: the importer is killed while its upload waits for one.
    sandbox = await startSandbox({ port: 0, rate: 0, latencyMs: 4000 });
    const { apiKey, url } = sandbox;
    const env = { ...process.env, ENGAGE_API_KEY: apiKey, ENGAGE_BASE_URL: url };
    const common = ['--report', 'report.csv', '--state-dir', 'state', '--rate', '1000', '--quiet', '--bulk', 'always'];
    const first = importer(['import', 'job.yaml', ...common], env, dir);
    const firstExit = exited(first);
    while (!sandbox.requests.some((q) => q.path.endsWith('users/import/')) && first.exitCode === null)
      await new Promise((r) => setTimeout(r, 5));
    first.kill('SIGKILL');
    expect(await firstExit).toBe(null);
    await sandbox.close();
    // The chunk the killed run was filling when it died: never recorded, its rows are read again.
    const runs = join(dir, 'state', 'runs');
    const [killed] = readdirSync(runs);
    const filling = join(runs, killed!, 'bulk', `0-00002-${killed}-0badf00d.csv`);
    writeFileSync(filling, 'custom_id,email\nC-19,c19@example.com\n');
    sandbox = await startSandbox({ port: Number(new URL(url).port), rate: 0, apiKey });
    expect(await exited(importer(['resume', ...common], env, dir))).toBe(0);
    const report = parse(readFileSync(join(dir, 'report.csv')), { columns: true }) as Record<string, string>[];
    expect(report.filter((l) => l.status === 'ok')).toHaveLength(20);
    expect(existsSync(filling)).toBe(false);
    expect(readdirSync(runs).flatMap((run) => readdirSync(join(runs, run, 'bulk')))).toEqual([]);
  });
});

describe('bulk import: resume --resend-unknown after --bulk-timeout', () => {
  it('polls the import that timed out instead of uploading its rows again', async () => {
    const dir = contactsJob([1, 2, 3]);
    // An import of 1 row/s outlives --bulk-timeout (0.01 min): its rows end unknown, its id recorded.
    sandbox = await startSandbox({ port: 0, rate: 0, bulkRowsPerS: 1 });
    const env = { ...process.env, ENGAGE_API_KEY: sandbox.apiKey, ENGAGE_BASE_URL: sandbox.url };
    const common = ['--report', 'report.csv', '--state-dir', 'state', '--rate', '1000', '--quiet', '--bulk', 'always'];
    const report = () => parse(readFileSync(join(dir, 'report.csv')), { columns: true }) as Record<string, string>[];
    const uploads = () => sandbox!.requests.filter((q) => q.method === 'POST' && q.path.endsWith('users/import/'));

    expect(await exited(importer(['import', 'job.yaml', ...common, '--bulk-timeout', '0.01'], env, dir))).toBe(3);
    expect(report().map((l) => `${l.key}:${l.status}`)).toEqual(['C-1:unknown', 'C-2:unknown', 'C-3:unknown']);
    const importId = /import (\S+) did not end/.exec(report()[0]!.message ?? '')?.[1];
    expect(importId).toBeDefined();
    expect(uploads()).toHaveLength(1);

    // Not quiet: its summary counts the import it waited for.
    const resume = importer(['resume', '--resend-unknown', ...common.filter((a) => a !== '--quiet')], env, dir);
    let stderr = '';
    resume.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
    expect(await exited(resume)).toBe(0);
    // The import was waited for, not started again: still one upload, and the report names it.
    expect(uploads()).toHaveLength(1);
    expect(stderr).toMatch(/contacts\.csv\s+user\s+bulk: 3 rows in 1 import, ok 3/);
    expect(report().map((l) => `${l.key}:${l.status}`)).toEqual(['C-1:ok', 'C-2:ok', 'C-3:ok']);
    expect(report().every((l) => l.message?.includes(importId!))).toBe(true);
    // Every row has its outcome now: the chunk file, which holds their data, is gone.
    const runs = join(dir, 'state', 'runs');
    expect(readdirSync(runs).flatMap((run) => readdirSync(join(runs, run, 'bulk')))).toEqual([]);
  }, 30_000);
});

describe('bulk import: a plain resume after --bulk-timeout', () => {
  it('waits for the import too (waiting sends nothing) before the events of its contacts go', async () => {
    const dir = contactsAndTheirEvent();
    // 1 row/s: C-3, the last row of the one import, is in the account about 3 s after the upload.
    sandbox = await startSandbox({ port: 0, rate: 0, bulkRowsPerS: 1 });
    const env = { ...process.env, ENGAGE_API_KEY: sandbox.apiKey, ENGAGE_BASE_URL: sandbox.url };
    const common = ['--report', 'report.csv', '--state-dir', 'state', '--rate', '1000', '--quiet', '--bulk', 'always'];
    const report = () => keyStatuses(dir);
    const uploads = () => sandbox!.requests.filter((q) => q.method === 'POST' && q.path.endsWith('users/import/'));
    const runs = join(dir, 'state', 'runs');

    expect(await exited(importer(['import', 'job.yaml', ...common, '--bulk-timeout', '0.01'], env, dir))).toBe(3);
    expect(report()).toEqual(['C-1:unknown', 'C-2:unknown', 'C-3:unknown', 'E1:not_sent']);
    // At once, the import still running: the resume waits for it, then sends the event.
    expect(await exited(importer(['resume', ...common], env, dir))).toBe(0);
    expect(report()).toEqual(['C-1:ok', 'C-2:ok', 'C-3:ok', 'E1:ok']);
    expect(uploads()).toHaveLength(1);
    expect(readdirSync(runs).flatMap((run) => readdirSync(join(runs, run, 'bulk')))).toEqual([]);
  }, 30_000);
});

describe('bulk import: kill -9 while polling, then resume, with a key in two chunks', () => {
  it('imports the chunks in input order: the later row of the key is the one the account keeps', async () => {
    const lines = ['customer_id,email'];
    for (let i = 0; i < 3000; i++) {
      lines.push(`C-${i},c${i}@example.com`);
      if (i === 1000) lines.push('C-990,later@example.com'); // C-990's later row, in the second chunk
    }
    const dir = tmpTree({
      'contacts.csv': `${lines.join('\n')}\n`,
      'contacts.yaml':
        'resource: user\nsource: { file: contacts.csv }\nkey: customer_id\nfields: { custom_id: customer_id, email: email }\n',
      'job.yaml': 'mappings: [contacts.yaml]\n',
    });
    // 1,000 rows at 400 rows/s: the first chunk's import runs 2.5 s, and is still running when the
    // resume starts; the second chunk, full before the stage ends, holds C-990's later row.
    sandbox = await startSandbox({ port: 0, rate: 0, bulkRowsPerS: 400 });
    const env = { ...process.env, ENGAGE_API_KEY: sandbox.apiKey, ENGAGE_BASE_URL: sandbox.url };
    const common = ['--report', 'report.csv', '--state-dir', 'state', '--rate', '1000', '--quiet'];
    const bulk = [...common, '--bulk', 'always', '--bulk-chunk-rows', '1000'];
    const polls = () => sandbox!.requests.filter((q) => q.method === 'GET' && q.path.includes('import/status')).length;
    const first = importer(['import', 'job.yaml', ...bulk], env, dir);
    const firstExit = exited(first);
    while (polls() === 0 && first.exitCode === null) await new Promise((r) => setTimeout(r, 5));
    first.kill('SIGKILL');
    expect(await firstExit).toBe(null);
    expect(await exited(importer(['resume', ...common], env, dir))).toBe(0);
    const user = sandbox.state.users().find((u) => u['custom_id'] === 'C-990');
    expect(user?.['email']).toBe('later@example.com');
  }, 60_000);
});

describe('bulk import: a plain resume after --bulk-timeout, the import finishing with 60 failures', () => {
  it('names every failure, the 10 it did not list too, by smaller uploads as any run does', async () => {
    const rows = ['customer_id,email'];
    for (let i = 0; i < 120; i++) rows.push(`C-${i},${i % 2 === 0 ? `c${i}@example.com` : `not-an-email-${i}`}`);
    const dir = tmpTree({
      'contacts.csv': `${rows.join('\n')}\n`,
      'contacts.yaml':
        'resource: user\nsource: { file: contacts.csv }\nkey: customer_id\nfields: { custom_id: customer_id, email: email }\n',
      'job.yaml': 'mappings: [contacts.yaml]\n',
    });
    // 120 rows at 60 rows/s: the import outlives --bulk-timeout (0.6 s), then finishes.
    sandbox = await startSandbox({ port: 0, rate: 0, bulkRowsPerS: 60 });
    const env = { ...process.env, ENGAGE_API_KEY: sandbox.apiKey, ENGAGE_BASE_URL: sandbox.url };
    const common = ['--report', 'report.csv', '--state-dir', 'state', '--rate', '1000', '--quiet', '--bulk', 'always'];
    const report = () => parse(readFileSync(join(dir, 'report.csv')), { columns: true }) as Record<string, string>[];

    expect(await exited(importer(['import', 'job.yaml', ...common, '--bulk-timeout', '0.01'], env, dir))).toBe(3);
    expect(await exited(importer(['resume', ...common], env, dir))).toBe(1);
    const lines = report();
    expect(lines.filter((l) => l.status === 'ok').map((l) => l.key)).toEqual(
      Array.from({ length: 60 }, (_, i) => `C-${2 * i}`),
    );
    const failed = lines.filter((l) => l.status === 'failed');
    expect(failed.map((l) => l.key)).toEqual(Array.from({ length: 60 }, (_, i) => `C-${2 * i + 1}`));
    expect(failed.every((l) => /email/i.test(l.message ?? ''))).toBe(true);
  }, 60_000);
});

describe('bulk import: a plain resume after --bulk-timeout, the import then failing', () => {
  it('uploads nothing again: the rows stay in doubt until resume --resend-unknown', async () => {
    const dir = contactsJob([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
    // Every import stops part-way with status `failed`, at 1 row/s: long after --bulk-timeout.
    sandbox = await startSandbox({ port: 0, rate: 0, bulkRowsPerS: 1, bulkFailRate: 1 });
    const env = { ...process.env, ENGAGE_API_KEY: sandbox.apiKey, ENGAGE_BASE_URL: sandbox.url };
    const common = ['--report', 'report.csv', '--state-dir', 'state', '--rate', '1000', '--quiet', '--bulk', 'always'];
    const report = () => parse(readFileSync(join(dir, 'report.csv')), { columns: true }) as Record<string, string>[];
    const uploads = () => sandbox!.requests.filter((q) => q.method === 'POST' && q.path.endsWith('users/import/'));

    expect(await exited(importer(['import', 'job.yaml', ...common, '--bulk-timeout', '0.01'], env, dir))).toBe(3);
    expect(uploads()).toHaveLength(1);
    expect(await exited(importer(['resume', ...common], env, dir))).toBe(1);
    expect(uploads()).toHaveLength(1);
    expect(new Set(report().map((l) => l.status))).toEqual(new Set(['unknown']));
    expect(report()[0]!.message).toContain('only resume --resend-unknown uploads them again');
  }, 30_000);
});

describe('bulk import: --bulk-timeout stops the run', () => {
  it('no later chunk or stage goes while the import it gave up on may still run; the resend goes on', async () => {
    const dir = contactsAndTheirEvent();
    sandbox = await startSandbox({ port: 0, rate: 0, bulkRowsPerS: 1 });
    const env = { ...process.env, ENGAGE_API_KEY: sandbox.apiKey, ENGAGE_BASE_URL: sandbox.url };
    const common = ['--report', 'report.csv', '--state-dir', 'state', '--rate', '1000', '--quiet'];
    const bulk = [...common, '--bulk', 'always', '--bulk-chunk-rows', '2'];
    const report = () => keyStatuses(dir);
    const uploads = () => sandbox!.requests.filter((q) => q.method === 'POST' && q.path.endsWith('users/import/'));
    const events = () => sandbox!.requests.filter((q) => q.path.includes('/events/'));

    expect(await exited(importer(['import', 'job.yaml', ...bulk, '--bulk-timeout', '0.01'], env, dir))).toBe(3);
    expect(report()).toEqual(['C-1:unknown', 'C-2:unknown', 'C-3:not_sent', 'E1:not_sent']);
    expect(uploads()).toHaveLength(1);
    expect(events()).toHaveLength(0);

    // Once the import is over: the resend waits for it, then sends the rest in order.
    await importsEnded(sandbox!);
    expect(await exited(importer(['resume', '--resend-unknown', ...common], env, dir))).toBe(0);
    expect(report()).toEqual(['C-1:ok', 'C-2:ok', 'C-3:ok', 'E1:ok']);
    expect(uploads()).toHaveLength(2);
  }, 30_000);
});
