import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startSandbox, type Sandbox } from '../../src/sandbox/index.js';
import { runCli } from '../helpers/run-cli.js';
import { tmpTree } from '../helpers/tmp.js';

let sandbox: Sandbox | undefined;
afterEach(async () => {
  await sandbox?.close();
  sandbox = undefined;
});

// Deal creates: each send makes a new deal, so the state knows them by their exact request, as events.
const DEALS =
  'resource: deal\noperation: create\nsource: { file: deals.csv }\nkey: ref\nfields:\n  name: name\n  user_custom_id: user\n';

describe('a deal-create mapping changed since the state was recorded', () => {
  it('refuses the incremental run as the preview says, sending nothing; --accept-mapping-change goes on', async () => {
    sandbox = await startSandbox({ rate: 0 });
    const lines = ['ref,name,user'];
    for (let i = 0; i < 6; i++) lines.push(`R${i},Deal ${i},${i % 2}`);
    const dir = tmpTree({
      'deals.csv': `${lines.join('\n')}\n`,
      'deals.yaml': DEALS,
      'contacts.csv': 'custom_id\n0\n1\n',
      'contacts.yaml':
        'resource: user\nsource: { file: contacts.csv }\nkey: custom_id\nfields: { custom_id: custom_id }\n',
      'job.yaml': 'mappings: [deals.yaml, contacts.yaml]\nsync: incremental\n',
    });
    const env = { ENGAGE_API_KEY: sandbox.apiKey, ENGAGE_BASE_URL: sandbox.url };
    const dealPosts = () => sandbox!.requests.filter((q) => q.method === 'POST' && q.path.includes('/deals/')).length;
    const night = (extra: string[] = []) =>
      runCli(['import', 'job.yaml', '--rate', '1000', ...extra], { cwd: dir, env });
    expect((await night()).code).toBe(0);
    expect(dealPosts()).toBe(6);

    writeFileSync(join(dir, 'deals.yaml'), `${DEALS}  currency: { value: EUR }\n`);
    const preview = await runCli(['validate', 'job.yaml', '--report', join(dir, 'p.csv')], { cwd: dir, env });
    expect(preview.stderr).toContain('a live incremental run refuses this file unless --accept-mapping-change');

    const refused = await night();
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain(
      'deals.csv: 6 of 6 deal creates look new, and its mapping changed since the sync state was recorded',
    );
    expect(refused.stderr).toContain('Nothing was sent');
    expect(dealPosts()).toBe(6);

    const accepted = await night(['--accept-mapping-change']);
    expect(accepted.code).toBe(0);
    expect(dealPosts()).toBe(12);
  });
});

describe('deal creates known by their custom_id, beside a deal mapping that changed', () => {
  it('are not held back for one new deal: a mapping change cannot make a deal created before look new', async () => {
    sandbox = await startSandbox({ rate: 0 });
    const creates = (n: number) => ['ref,name,user', ...Array.from({ length: n }, (_, i) => `DC-${i},Deal ${i},0`)];
    const dir = tmpTree({
      'creates.csv': `${creates(4).join('\n')}\n`,
      'creates.yaml':
        'resource: deal\noperation: create\nsource: { file: creates.csv }\nkey: ref\nfields:\n  custom_id: ref\n  name: name\n  user_custom_id: user\n',
      'upserts.csv': 'ref,name,user\nDU-1,Upsert 1,0\n',
      'upserts.yaml':
        'resource: deal\noperation: update_or_create\nsource: { file: upserts.csv }\nkey: ref\nfields:\n  custom_id: ref\n  name: name\n  user_custom_id: user\n',
      'contacts.csv': 'custom_id\n0\n',
      'contacts.yaml':
        'resource: user\nsource: { file: contacts.csv }\nkey: custom_id\nfields: { custom_id: custom_id }\n',
      'job.yaml': 'mappings: [creates.yaml, upserts.yaml, contacts.yaml]\nsync: incremental\n',
    });
    const env = { ENGAGE_API_KEY: sandbox.apiKey, ENGAGE_BASE_URL: sandbox.url };
    const night = () => runCli(['import', 'job.yaml', '--rate', '1000'], { cwd: dir, env });
    expect((await night()).code).toBe(0);

    // Night 2: one new deal create, and only the update_or_create mapping gains a field.
    writeFileSync(join(dir, 'creates.csv'), `${creates(5).join('\n')}\n`);
    writeFileSync(
      join(dir, 'upserts.yaml'),
      `${readFileSync(join(dir, 'upserts.yaml'), 'utf8')}  currency: { value: EUR }\n`,
    );
    const next = await night();
    expect(next.code).toBe(0);
    expect(next.stderr).not.toContain('look new');
    expect(next.stderr).toMatch(/creates\.csv\s+deal\s+ok 1, already_sent 4/);
    const creations = sandbox.requests.filter((q) => q.method === 'POST' && q.path.endsWith('/deals/'));
    expect(creations).toHaveLength(5);
  });
});
