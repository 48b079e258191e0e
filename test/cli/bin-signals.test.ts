import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parse } from 'csv-parse/sync';
import { afterEach, describe, expect, it } from 'vitest';
import { startSandbox, type Sandbox } from '../../src/sandbox/index.js';
import { tmpTree } from '../helpers/tmp.js';

const BIN = join(import.meta.dirname, '../../src/cli/bin.ts');
const TSX = pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href;

let sandbox: Sandbox | undefined;
afterEach(async () => {
  await sandbox?.close();
  sandbox = undefined;
});

describe('the engage-import process and signals', () => {
  it.each([
    ['SIGINT', 130],
    ['SIGTERM', 143],
  ] as const)(
    '%s: finishes the requests in flight, writes the whole report, says how to resume, exits %d',
    async (sig, code) => {
      sandbox = await startSandbox({ rate: 0, latencyMs: 50 });
      const rows = Array.from({ length: 200 }, (_, i) => `P${i},Product ${i}`);
      const dir = tmpTree({
        'p.csv': `sku,name\n${rows.join('\n')}\n`,
        'p.yaml': 'resource: product\nsource: { file: p.csv }\nkey: sku\nfields: { custom_id: sku, name: name }\n',
      });
      const child = spawn(
        process.execPath,
        ['--import', TSX, BIN, 'import', 'p.yaml', '--rate', '1000', '--concurrency', '4'],
        {
          cwd: dir,
          env: { ...process.env, ENGAGE_API_KEY: sandbox.apiKey, ENGAGE_BASE_URL: sandbox.url },
          stdio: ['ignore', 'ignore', 'pipe'],
        },
      );
      let stderr = '';
      child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
      while (sandbox.requests.length < 10) await new Promise((r) => setTimeout(r, 5));
      child.kill(sig);
      const exit = await new Promise<number | null>((r) => child.once('exit', r));
      expect(exit).toBe(code);
      expect(stderr).toContain(
        `engage-import: ${sig}: finishing the requests in flight (up to 45 s; ${sig} again to stop at once)`,
      );
      expect(stderr).toMatch(/resume with: engage-import resume \.engage-import\/runs\//);
      const report = parse(readFileSync(join(dir, 'out/report.csv')), { columns: true }) as Record<string, string>[];
      expect(report).toHaveLength(200);
      // Every request the sandbox answered is recorded as ok: none was abandoned in flight.
      const applied = sandbox.requests.filter((q) => q.applied).length;
      expect(report.filter((r) => r.status === 'ok')).toHaveLength(applied);
      expect(report.filter((r) => r.status === 'not_sent')).toHaveLength(200 - applied);
    },
    60_000,
  );
});

describe('a second signal', () => {
  it('stops at once during a live run and names the command that resumes that run', async () => {
    sandbox = await startSandbox({ rate: 0, latencyMs: 3_000 });
    const rows = Array.from({ length: 20 }, (_, i) => `P${i},Product ${i}`);
    const dir = tmpTree({
      'p.csv': `sku,name\n${rows.join('\n')}\n`,
      'p.yaml': 'resource: product\nsource: { file: p.csv }\nkey: sku\nfields: { custom_id: sku, name: name }\n',
    });
    const child = spawn(process.execPath, ['--import', TSX, BIN, 'import', 'p.yaml', '--rate', '1000'], {
      cwd: dir,
      env: { ...process.env, ENGAGE_API_KEY: sandbox.apiKey, ENGAGE_BASE_URL: sandbox.url },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    // Requests are in flight (each takes 3 s): the first signal waits for them, the second does not.
    while (sandbox.requests.length < 1) await new Promise((r) => setTimeout(r, 5));
    child.kill('SIGINT');
    while (!stderr.includes('SIGINT again to stop at once')) await new Promise((r) => setTimeout(r, 5));
    child.kill('SIGINT');
    const exit = await new Promise<number | null>((r) => child.once('exit', r));
    expect(exit).toBe(130);
    expect(stderr).toMatch(
      /engage-import: stopped at once \(SIGINT\); continue the run with: engage-import resume \.engage-import\/runs\/\d{8}T\d{6}Z-\w+\n/,
    );
  }, 60_000);
});

describe('the engage-import process and its output', () => {
  it('a stdout that cannot be written (a full disk) is a warning: the exit code stands, no stack trace', async () => {
    const { openSync, closeSync } = await import('node:fs');
    const full = openSync('/dev/full', 'w');
    try {
      const child = spawn(
        process.execPath,
        ['--import', TSX, BIN, 'validate', 'samples/job.yaml', '--json', '--report', join(tmpTree(), 'r.csv')],
        { cwd: join(import.meta.dirname, '../..'), env: process.env, stdio: ['ignore', full, 'pipe'] },
      );
      let stderr = '';
      child.stderr!.on('data', (c: Buffer) => (stderr += c.toString()));
      const exit = await new Promise<number | null>((r) => child.once('exit', r));
      expect(exit).toBe(1); // the samples hold invalid rows on purpose
      expect(stderr).toContain('engage-import: warning: the output on stdout could not be written (ENOSPC)');
      expect(stderr).not.toContain('    at ');
    } finally {
      closeSync(full);
    }
  });
});
