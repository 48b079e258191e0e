import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startSandbox, type Sandbox } from '../../src/sandbox/index.js';
import { readReport } from '../helpers/read-report.js';
import { runCli } from '../helpers/run-cli.js';
import { tmpTree } from '../helpers/tmp.js';

let sandbox: Sandbox | undefined;
afterEach(async () => {
  await sandbox?.close();
  sandbox = undefined;
});

/** Two exports that both set the contacts' first name; the job sends a.csv, then b.csv. */
function twoExportsJob(): string {
  const mapping = (file: string) =>
    `resource: user\nsource: { file: ${file} }\nkey: id\nfields: { custom_id: id, first_name: name }\n`;
  return tmpTree({
    'a.csv': 'id,name\nC-1,FromA1\nC-2,FromA2\n',
    'b.csv': 'id,name\nC-1,FromB1\nC-2,FromB2\n',
    'a.yaml': mapping('a.csv'),
    'b.yaml': mapping('b.csv'),
    'job.yaml': 'mappings: [a.yaml, b.yaml]\nsync: incremental\n',
  });
}

describe('two mappings of one resource in an incremental job', () => {
  it('every night ends as a full run would, with the later file’s values', async () => {
    sandbox = await startSandbox({ rate: 0 });
    const dir = twoExportsJob();
    const env = { ENGAGE_API_KEY: sandbox.apiKey, ENGAGE_BASE_URL: sandbox.url };
    for (let night = 1; night <= 3; night++) {
      const r = await runCli(['import', 'job.yaml', '--rate', '1000'], { cwd: dir, env });
      expect(r.code).toBe(0);
      const names = sandbox.state
        .users()
        .map((u) => `${String(u['custom_id'])}:${String(u['first_name'])}`)
        .sort();
      expect([night, names]).toEqual([night, ['C-1:FromB1', 'C-2:FromB2']]);
    }
  });

  it('the preview says what the live run then sends, file by file', async () => {
    sandbox = await startSandbox({ rate: 0 });
    const dir = twoExportsJob();
    const env = { ENGAGE_API_KEY: sandbox.apiKey, ENGAGE_BASE_URL: sandbox.url };
    const lines = (report: string) =>
      readReport(dir, report).map(
        (l) => `${l['file']} ${l['key']}: ${l['status']}${l['message'] ? ` (${l['message']})` : ''}`,
      );
    expect((await runCli(['import', 'job.yaml', '--rate', '1000'], { cwd: dir, env })).code).toBe(0);
    // An unchanged night: a.csv differs from what b.csv left in the account, and b.csv from a.csv.
    expect((await runCli(['validate', 'job.yaml', '--report', 'preview.csv'], { cwd: dir, env })).code).toBe(0);
    expect(lines('preview.csv')).toEqual([
      'a.csv C-1: changed',
      'a.csv C-2: changed',
      'b.csv C-1: changed',
      'b.csv C-2: changed',
    ]);
    const before = sandbox.requests.length;
    expect(
      (await runCli(['import', 'job.yaml', '--rate', '1000', '--report', 'live.csv'], { cwd: dir, env })).code,
    ).toBe(0);
    expect(sandbox.requests.length - before).toBe(4);
    // b.csv sending what a.csv sends: the preview compares it with a.csv's row, as the live run does.
    writeFileSync(join(dir, 'b.csv'), 'id,name\nC-1,FromA1\nC-2,FromB2\n');
    await runCli(['validate', 'job.yaml', '--report', 'preview.csv'], { cwd: dir, env });
    expect(lines('preview.csv')).toEqual([
      'a.csv C-1: changed',
      'a.csv C-2: changed',
      'b.csv C-1: unchanged (same request as a.csv line 2, sent earlier in this run)',
      'b.csv C-2: changed',
    ]);
    const sent = sandbox.requests.length;
    await runCli(['import', 'job.yaml', '--rate', '1000', '--report', 'live.csv'], { cwd: dir, env });
    expect(lines('live.csv').filter((l) => l.includes(': ok'))).toHaveLength(3);
    expect(sandbox.requests.length - sent).toBe(3);
  });

  it('an event two files carry: the preview calls the later row already sent, as the live run does', async () => {
    sandbox = await startSandbox({ rate: 0, fixtures: { users: [{ custom_id: 'U0' }] } });
    const mapping = (file: string) =>
      `resource: event\nsource: { file: ${file} }\nkey: id\nfields:\n  user_custom_id: user\n  name: { value: Visited }\n  data.id: id\n`;
    const dir = tmpTree({
      'a.csv': 'id,user\nE1,U0\nE2,U0\n',
      'b.csv': 'id,user\nE2,U0\nE3,U0\n',
      'a.yaml': mapping('a.csv'),
      'b.yaml': mapping('b.csv'),
      'job.yaml': 'mappings: [a.yaml, b.yaml]\nsync: incremental\n',
    });
    const env = { ENGAGE_API_KEY: sandbox.apiKey, ENGAGE_BASE_URL: sandbox.url };
    const statuses = (report: string) => readReport(dir, report).map((l) => `${l['file']} ${l['key']}: ${l['status']}`);
    const preview = await runCli(['validate', 'job.yaml', '--report', 'preview.csv'], { cwd: dir, env });
    expect(preview.code).toBe(0);
    expect(preview.stdout + preview.stderr).not.toContain('superseded');
    const previewed = readReport(dir, 'preview.csv');
    expect(previewed[2]).toMatchObject({
      file: 'b.csv',
      key: 'E2',
      status: 'already_sent',
      message: 'same event as a.csv line 3, sent earlier in this run',
    });
    const live = await runCli(['import', 'job.yaml', '--rate', '1000', '--report', 'live.csv'], { cwd: dir, env });
    expect(live.code).toBe(0);
    expect(sandbox.requests.filter((q) => q.path.includes('/events/'))).toHaveLength(3);
    expect(statuses('live.csv')).toEqual(['a.csv E1: ok', 'a.csv E2: ok', 'b.csv E2: already_sent', 'b.csv E3: ok']);
    expect(statuses('preview.csv').map((l) => l.replace(/: new$/, ': ok'))).toEqual(statuses('live.csv'));
  });
});
