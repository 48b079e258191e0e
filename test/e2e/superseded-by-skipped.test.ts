/**
 * An incremental run sends one row per key (the later entity row; the first row of an event or a
 * deal create). A row that will be skipped, because its parent is invalid or failed, must not be
 * that row: the one it would stand for must go instead, as it does in a plain run.
 */
import { appendFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startSandbox, type Sandbox } from '../../src/sandbox/index.js';
import { eventsJob } from '../helpers/events-job.js';
import { readReport } from '../helpers/read-report.js';
import { runCli } from '../helpers/run-cli.js';
import { tmpTree } from '../helpers/tmp.js';

let sandbox: Sandbox | undefined;
afterEach(async () => {
  await sandbox?.close();
  sandbox = undefined;
});

const deal = (operation: string, file: string) =>
  `resource: deal\noperation: ${operation}\nsource: { file: ${file} }\nkey: row\nfields:\n  custom_id: row\n  user_custom_id: customer\n  name: name\n  value: { column: value, type: number }\n`;

describe('a row whose parent is invalid never stands for another row of its key', () => {
  it('the other row is sent: the account holds both deals, as after a plain run', async () => {
    sandbox = await startSandbox({ rate: 0 });
    const env = { ENGAGE_API_KEY: sandbox.apiKey, ENGAGE_BASE_URL: sandbox.url };
    const dir = tmpTree({
      // C-3's first name is longer than the API's 40 characters: invalid here, so its deals are skipped.
      'contacts.csv': `custom_id,first_name\nC-1,Alice\nC-3,${'X'.repeat(51)}\n`,
      'contacts.yaml':
        'resource: user\nsource: { file: contacts.csv }\nkey: custom_id\nfields: { custom_id: custom_id, first_name: first_name }\n',
      'deals.csv': 'row,customer,name,value\nD-1,C-1,Deal one,1.5\nD-1,C-3,Deal one b,2.5\n',
      'deals.yaml': deal('update_or_create', 'deals.csv'),
      'creates.csv': 'row,customer,name,value\nDC-1,C-3,Deal c,1.5\nDC-1,C-1,Deal c,1.5\n',
      'creates.yaml': deal('create', 'creates.csv'),
      'job.yaml': 'mappings: [contacts.yaml, deals.yaml, creates.yaml]\nsync: incremental\n',
    });
    const r = await runCli(['import', 'job.yaml', '--rate', '1000'], { cwd: dir, env });
    expect(r.code).toBe(1);
    expect(readReport(dir).map((l) => `${l['file']}:${l['line']}:${l['status']}`)).toEqual([
      'contacts.csv:2:ok',
      'contacts.csv:3:invalid',
      'deals.csv:2:ok',
      'deals.csv:3:skipped',
      'creates.csv:2:skipped',
      'creates.csv:3:ok',
    ]);
    expect(sandbox.state.deals().map((d) => `${d.custom_id}:${d.name}`)).toEqual(['D-1:Deal one', 'DC-1:Deal c']);
  });

  it('a deal create whose contact the API refused does not stand for the next create of that deal', async () => {
    sandbox = await startSandbox({ rate: 0, fixtures: { userAttributes: ['tier'] } });
    const env = { ENGAGE_API_KEY: sandbox.apiKey, ENGAGE_BASE_URL: sandbox.url };
    const dir = tmpTree({
      // shoe_size is no custom attribute of the account: the API refuses C-3, which sets it.
      'contacts.csv': 'custom_id,shoe\nC-1,\nC-3,42\n',
      'contacts.yaml':
        'resource: user\nsource: { file: contacts.csv }\nkey: custom_id\nfields: { custom_id: custom_id, shoe_size: shoe }\n',
      'creates.csv': 'row,customer,name,value\nDC-1,C-3,Deal c,1.5\nDC-1,C-1,Deal c,1.5\n',
      'creates.yaml': deal('create', 'creates.csv'),
      'job.yaml': 'mappings: [contacts.yaml, creates.yaml]\nsync: incremental\n',
    });
    const r = await runCli(['import', 'job.yaml', '--rate', '1000', '--bulk', 'never'], { cwd: dir, env });
    expect(r.code).toBe(1);
    expect(readReport(dir).map((l) => `${l['file']}:${l['line']}:${l['status']}`)).toEqual([
      'contacts.csv:2:ok',
      'contacts.csv:3:failed',
      'creates.csv:2:skipped',
      'creates.csv:3:ok',
    ]);
    expect(sandbox.state.deals().map((d) => d.custom_id)).toEqual(['DC-1']);
  });

  it('an event sent on an earlier night stays already_sent when its contact turns invalid, not skipped', async () => {
    sandbox = await startSandbox({ rate: 0 });
    const env = { ENGAGE_API_KEY: sandbox.apiKey, ENGAGE_BASE_URL: sandbox.url };
    const dir = eventsJob(4, { incremental: true });
    expect((await runCli(['import', 'job.yaml', '--rate', '1000'], { cwd: dir, env })).code).toBe(0);
    // Night 2: contact 0's row is now invalid (a first name over 40 characters); its events E0 and
    // E3 were sent on night 1, and a new one, E9, names it too.
    writeFileSync(
      join(dir, 'contacts.yaml'),
      'resource: user\nsource: { file: contacts.csv }\nkey: custom_id\nfields: { custom_id: custom_id, first_name: name }\n',
    );
    writeFileSync(join(dir, 'contacts.csv'), `custom_id,name\n0,${'X'.repeat(41)}\n1,Bo\n2,Cy\n`);
    appendFileSync(join(dir, 'events.csv'), 'E9,0\n');
    const r = await runCli(['import', 'job.yaml', '--rate', '1000', '--report', 'night2.csv'], { cwd: dir, env });
    expect(r.code).toBe(1);
    const events = readReport(dir, 'night2.csv').filter((l) => l['file'] === 'events.csv');
    expect(events.map((l) => `${l['key']}:${l['status']}`)).toEqual([
      'E0:already_sent',
      'E1:already_sent',
      'E2:already_sent',
      'E3:already_sent',
      'E9:skipped',
    ]);
  });
});
