import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'csv-parse/sync';
import { afterEach, describe, expect, it } from 'vitest';
import { startSandbox, type Sandbox } from '../../src/sandbox/index.js';
import { runCli } from '../helpers/run-cli.js';
import { tmpTree } from '../helpers/tmp.js';

const ROOT = join(import.meta.dirname, '../..');
const CANARY = `canary${'k'.repeat(58)}`; // 64 characters, like a real key

let sandbox: Sandbox | undefined;
afterEach(async () => {
  await sandbox?.close();
  sandbox = undefined;
});

type Line = Record<string, string>;
const readReport = (path: string) => parse(readFileSync(path), { columns: true }) as Line[];

/** Every input line of every sample file, as `file:line`, from the dry run's report. */
async function sampleLines(): Promise<string[]> {
  const out = join(tmpTree(), 'dry.csv');
  await runCli(['validate', 'samples/job.yaml', '--report', out, '--quiet'], { cwd: ROOT });
  return readReport(out).map((l) => `${l.file}:${l.line}`);
}

async function importSamples(extra: string[] = [], env: Record<string, string> = {}) {
  const out = tmpTree();
  const r = await runCli(
    [
      'import',
      'samples/job.yaml',
      '--base-url',
      sandbox!.url,
      '--report',
      join(out, 'report.csv'),
      '--rejects',
      join(out, 'rejects.csv'),
      '--state-dir',
      join(out, 'state'),
      '--rate',
      '1000',
      ...extra,
    ],
    { cwd: ROOT, env: { ENGAGE_API_KEY: sandbox!.apiKey, ...env } },
  );
  return { ...r, out, report: readReport(join(out, 'report.csv')) };
}

describe('live import of the samples against the sandbox', () => {
  it('sends every valid row in dependency order and reports every input line exactly once', async () => {
    sandbox = await startSandbox({ rate: 0 });
    const r = await importSamples();
    expect(r.code).toBe(1); // the samples hold bad rows on purpose
    expect(r.report.map((l) => `${l.file}:${l.line}`)).toEqual(await sampleLines());
    const count = (status: string) => r.report.filter((l) => l.status === status).length;
    expect([count('ok'), count('invalid'), count('failed')]).toEqual([73, 18, 2]);
    expect(r.report.find((l) => l.key === 'EV-0016')).toMatchObject({
      status: 'failed',
      http_status: '404',
      message: 'No ClientUser matches the given query.',
    });
    expect(r.report.find((l) => l.key === 'D-2026-0013')).toMatchObject({
      status: 'failed',
      http_status: '400',
      message: 'user_custom_id: Object with custom_id=C-10099 does not exist.',
    });
    // Stages in order: no contact request before the last product request, and so on.
    const paths = sandbox.requests.map((q) => q.path.replace('/api/public/', ''));
    const last = (p: RegExp) => paths.findLastIndex((x) => p.test(x));
    const first = (p: RegExp) => paths.findIndex((x) => p.test(x));
    expect(last(/^products\/$/)).toBeLessThan(first(/^users\//));
    expect(last(/^users\/update_or_create/)).toBeLessThan(first(/^deals\//));
    expect(last(/^deals\//)).toBeLessThan(first(/events\/$|product_event|product-event-creation/));
    expect(first(/^webpush-campaign\//)).toBeGreaterThan(last(/product_event|product-event-creation|events\/$/));
    // A product custom id with "/" goes to the alternative endpoint (docs/api-contract.md R-PEVT-2).
    expect(paths).toContain('product-event-creation/SKU/2024/RED/');
    expect(r.stderr).toContain('Import: 93 rows in 7 files: invalid 18, ok 73, failed 2');
    // Failed rows are in the rejects too, with the service's message.
    expect(readFileSync(join(r.out, 'rejects.events.csv'), 'utf8')).toContain('No ClientUser matches the given query.');
  });

  it('with 5% server errors and 1% dropped connections, every idempotent row still ends ok', async () => {
    sandbox = await startSandbox({ rate: 0, failRate: 0.05, dropRate: 0.01, seed: 7 });
    const r = await importSamples(['--max-attempts', '8']);
    expect(r.report.map((l) => `${l.file}:${l.line}`)).toEqual(await sampleLines());
    const idempotent = r.report.filter(
      (l) => ['user', 'webpush-campaign'].includes(l.resource!) || l.file === 'samples/deals.csv',
    );
    expect(idempotent.filter((l) => !['ok', 'invalid', 'failed'].includes(l.status!))).toEqual([]);
    expect(idempotent.filter((l) => l.status === 'failed').map((l) => l.key)).toEqual(['D-2026-0013']);
    expect(sandbox.requests.some((q) => q.fault !== null)).toBe(true);
  });

  it('with --unsafe-retries never, no event or product event is applied twice', async () => {
    sandbox = await startSandbox({ rate: 0, failRate: 0.1, dropRate: 0.05, seed: 11 });
    const r = await importSamples(['--unsafe-retries', 'never']);
    expect(r.report.map((l) => `${l.file}:${l.line}`)).toEqual(await sampleLines());
    const applied = new Map<string, number>();
    for (const q of sandbox.requests) {
      if (!q.applied || !/events\/$|product_event\/$|product-event-creation\//.test(q.path)) continue;
      const k = JSON.stringify(q.body) + q.path;
      applied.set(k, (applied.get(k) ?? 0) + 1);
    }
    expect([...applied.values()].filter((n) => n > 1)).toEqual([]);
    const unknown = r.report.filter((l) => l.status === 'unknown');
    for (const l of unknown) expect(l.message).toMatch(/may have been applied/);
  });

  it('a 401 stops the run at once: no further request, every row not yet sent is not_sent, exit 3', async () => {
    sandbox = await startSandbox({ rate: 0 });
    const r = await importSamples([], { ENGAGE_API_KEY: CANARY });
    expect(r.code).toBe(3);
    expect(sandbox.requests).toHaveLength(1);
    expect(sandbox.requests[0]?.status).toBe(401);
    expect(r.report.map((l) => `${l.file}:${l.line}`)).toEqual(await sampleLines());
    expect(r.report.filter((l) => l.status === 'ok')).toEqual([]);
    const notSent = r.report.filter((l) => l.status === 'not_sent');
    expect(notSent).toHaveLength(75);
    expect(notSent[0]?.message).toBe(
      'not sent: the API refused the credentials (401): check ENGAGE_API_KEY or --api-key-file',
    );
    expect(r.stderr).toContain('the API refused the credentials (401)');
  });

  it('never writes the API key anywhere: output, report, rejects, ledger, state directory', async () => {
    sandbox = await startSandbox({ rate: 0, apiKey: CANARY, failRate: 0.05, seed: 3 });
    const r = await importSamples(['--json']);
    expect(r.code).toBe(1);
    expect(r.stdout + r.stderr).not.toContain(CANARY);
    const files = (dir: string): string[] =>
      readdirSync(dir).flatMap((f) => (statSync(join(dir, f)).isDirectory() ? files(join(dir, f)) : [join(dir, f)]));
    const written = files(r.out);
    expect(written.some((f) => f.endsWith('ledger.sqlite'))).toBe(true);
    for (const f of written) expect(readFileSync(f).includes(CANARY), f).toBe(false);
  });
});

describe('a key file that holds more than the key', () => {
  it('is refused before any request (exit 2), naming the file and never the key', async () => {
    sandbox = await startSandbox({ rate: 0, apiKey: CANARY });
    const keyDir = tmpTree({ key: `${CANARY}\nrotated 2026-11-01 by ops\n` });
    const r = await runCli(
      [
        'import',
        'samples/job.yaml',
        '--base-url',
        sandbox.url,
        '--api-key-file',
        join(keyDir, 'key'),
        '--state-dir',
        join(keyDir, 'state'),
      ],
      { cwd: ROOT },
    );
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(
      `--api-key-file ${join(keyDir, 'key')}: the API key holds a line break after its first 64 characters`,
    );
    expect(r.stdout + r.stderr).not.toContain(CANARY);
    expect(sandbox.requests).toHaveLength(0);
  });
});

describe('failures that do not cascade', () => {
  it('skips the events of a contact that failed, naming it, and sends none of them', async () => {
    sandbox = await startSandbox({ rate: 0 });
    const dir = tmpTree({
      'contacts.csv': 'custom_id,first_name\nC-1,Ann\nC-2,Maximilian-Alexander Konstantin Friedrich\n',
      'contacts.yaml':
        'resource: user\nsource: { file: contacts.csv }\nkey: custom_id\nfields: { custom_id: custom_id, first_name: first_name }\n',
      'events.csv': 'id,customer\nE1,C-1\nE2,C-2\nE3,C-2\n',
      'events.yaml':
        'resource: event\nsource: { file: events.csv }\nkey: id\nfields:\n  user_custom_id: customer\n  name: { value: Signed Up }\n',
      'job.yaml': 'mappings: [events.yaml, contacts.yaml]\n',
    });
    const r = await runCli(['import', 'job.yaml', '--base-url', sandbox.url, '--rate', '1000'], {
      cwd: dir,
      env: { ENGAGE_API_KEY: sandbox.apiKey },
    });
    expect(r.code).toBe(1);
    expect(readFileSync(join(dir, 'out/report.csv'), 'utf8')).toBe(
      'file,line,resource,key,status,http_status,id,message\n' +
        'contacts.csv,2,user,C-1,ok,201,1,\n' +
        'contacts.csv,3,user,C-2,invalid,,,"first_name: at most 40 characters, got 41: ""Maximilian-Alexander Konstantin Friedrich"""\n' +
        `events.csv,2,event,E1,ok,201,${readReport(join(dir, 'out/report.csv'))[2]?.id},\n` +
        'events.csv,3,event,E2,skipped,,,"depends on user custom_id \'C-2\', which was invalid at contacts.csv line 3"\n' +
        'events.csv,4,event,E3,skipped,,,"depends on user custom_id \'C-2\', which was invalid at contacts.csv line 3"\n',
    );
    expect(sandbox.requests.filter((q) => q.path.includes('/events/'))).toHaveLength(1);
  });
});
