import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
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

/** A cumulative event export (10 events of 3 contacts) without identity:, run incrementally. */
function nightlyJob(): string {
  const lines = ['id,user'];
  for (let i = 0; i < 10; i++) lines.push(`E${i},${i % 3}`);
  return tmpTree({
    'events.csv': `${lines.join('\n')}\n`,
    'events.yaml': EVENTS,
    'contacts.csv': 'custom_id,name\n0,Ann\n1,Bo\n2,Cy\n',
    'contacts.yaml':
      'resource: user\nsource: { file: contacts.csv }\nkey: custom_id\nfields: { custom_id: custom_id, first_name: name }\n',
    'job.yaml': 'mappings: [events.yaml, contacts.yaml]\nsync: incremental\n',
  });
}

/**
 * A fresh sandbox and the nightly job (its event mapping `events`), after a first night run with
 * `firstNight` options; `night` runs the next one.
 */
async function afterFirstNight(events = EVENTS, firstNight: string[] = []) {
  sandbox = await startSandbox({ rate: 0 });
  const dir = nightlyJob();
  writeFileSync(join(dir, 'events.yaml'), events);
  const env = { ENGAGE_API_KEY: sandbox.apiKey, ENGAGE_BASE_URL: sandbox.url };
  const night = (extra: string[] = []) => runCli(['import', 'job.yaml', '--rate', '1000', ...extra], { cwd: dir, env });
  expect((await night(firstNight)).code).toBe(0);
  return { sandbox, dir, env, night };
}

/** As `afterFirstNight`, with the events file's own lines (a name column, say). */
async function afterFirstNightOf(events: string, lines: readonly string[]) {
  sandbox = await startSandbox({ rate: 0 });
  const dir = nightlyJob();
  writeFileSync(join(dir, 'events.csv'), `${lines.join('\n')}\n`);
  writeFileSync(join(dir, 'events.yaml'), events);
  const env = { ENGAGE_API_KEY: sandbox.apiKey, ENGAGE_BASE_URL: sandbox.url };
  const night = () => runCli(['import', 'job.yaml', '--rate', '1000'], { cwd: dir, env });
  expect((await night()).code).toBe(0);
  return { dir, night };
}

const eventRequests = (s: Sandbox | undefined) =>
  s!.requests.filter((q) => q.method === 'POST' && q.path.includes('/events/')).length;

describe('an event mapping without identity: that changed', () => {
  it('refuses the run before anything is sent, until the operator accepts the change', async () => {
    const { dir, env, night } = await afterFirstNight();
    expect(eventRequests(sandbox)).toBe(10);

    // The mapping gains a field: every past event's request, its identity, changes.
    writeFileSync(join(dir, 'events.yaml'), `${EVENTS}  data.channel: { value: web }\n`);
    const refused = await night();
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain(
      'events.csv: 10 of 10 events look new, and its mapping changed since the sync state was recorded (events.yaml was edited, or is new to the job)',
    );
    expect(refused.stderr).toContain('run again with --accept-mapping-change');
    expect(eventRequests(sandbox)).toBe(10);
    expect(readdirSync(join(dir, '.engage-import', 'runs'))).toHaveLength(1);
    // The preview says the same before the night.
    const preview = await runCli(['validate', 'job.yaml', '--report', join(dir, 'preview.csv')], { cwd: dir, env });
    expect(preview.stderr).toContain('a live incremental run refuses this file unless --accept-mapping-change');

    // The operator decides these are new events: sent once, and the state learns the new mapping.
    const accepted = await night(['--accept-mapping-change']);
    expect(accepted.code).toBe(0);
    expect(eventRequests(sandbox)).toBe(20);
    const next = await night();
    expect(next.code).toBe(0);
    expect(next.stderr).toContain('already_sent 10');
    expect(eventRequests(sandbox)).toBe(20);
  });

  it('a field added that only some past events fill: refused too, although most events are recognised', async () => {
    const { dir, env, night } = await afterFirstNight();
    // Two of the ten past events have a coupon: the new field changes their requests only.
    const lines = ['id,user,coupon'];
    for (let i = 0; i < 10; i++) lines.push(`E${i},${i % 3},${i % 5 === 0 ? 'SPRING' : ''}`);
    writeFileSync(join(dir, 'events.csv'), `${lines.join('\n')}\n`);
    writeFileSync(join(dir, 'events.yaml'), `${EVENTS}  data.coupon: coupon\n`);
    const preview = await runCli(['validate', 'job.yaml', '--report', join(dir, 'preview.csv')], { cwd: dir, env });
    expect(preview.stderr).toContain('a live incremental run refuses this file unless --accept-mapping-change');
    const refused = await night();
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('events.csv: 2 of 10 events look new');
    // Nothing recorded twice.
    expect(eventRequests(sandbox)).toBe(10);
  });

  it('a night run with --deal-update-method PUT is no mapping change for the preview either', async () => {
    const { dir, env } = await afterFirstNight(EVENTS, ['--deal-update-method', 'PUT']);
    writeFileSync(join(dir, 'events.csv'), `${readFileSync(join(dir, 'events.csv'), 'utf8')}E10,0\n`);
    const preview = await runCli(['validate', 'job.yaml', '--report', join(dir, 'preview.csv')], { cwd: dir, env });
    expect(preview.stderr).toContain('new 1');
    expect(preview.stderr).not.toContain('mapping changed');
  });

  it('one accept is enough, even on a night that accepts no event of the file', async () => {
    const { dir, night } = await afterFirstNight();
    // A field no past event fills, and one new event whose contact does not exist: refused each
    // night (it looks new), so the change is refused until accepted.
    const lines = ['id,user,coupon'];
    for (let i = 0; i < 10; i++) lines.push(`E${i},${i % 3},`);
    lines.push('E10,nobody,');
    writeFileSync(join(dir, 'events.csv'), `${lines.join('\n')}\n`);
    writeFileSync(join(dir, 'events.yaml'), `${EVENTS}  data.coupon: coupon\n`);
    expect((await night()).code).toBe(2);
    const accepted = await night(['--accept-mapping-change']);
    expect(accepted.stderr).toContain('already_sent 10');
    // E10 failed (its contact is missing): no event of the file was accepted that night, and yet
    // the next night goes on.
    const next = await night();
    expect(next.code, next.stderr).toBe(1);
    expect(next.stderr).toContain('already_sent 10');
    expect(eventRequests(sandbox)).toBe(12);
  });

  it('a mapping with identity: gets a field added and one new event: not held back', async () => {
    const { dir, night } = await afterFirstNight(EVENTS.replace('key: id\n', 'key: id\nidentity: [id]\n'));
    writeFileSync(
      join(dir, 'events.yaml'),
      `${EVENTS.replace('key: id\n', 'key: id\nidentity: [id]\n')}  data.channel: { value: web }\n`,
    );
    writeFileSync(join(dir, 'events.csv'), `${readFileSync(join(dir, 'events.csv'), 'utf8')}E10,0\n`);
    const r = await night();
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain('ok 1, already_sent 10');
    expect(eventRequests(sandbox)).toBe(11);
  });

  it('an event renamed in a mapping with identity: is held back too; a deal option changed is not a change', async () => {
    const { dir, night } = await afterFirstNight(EVENTS.replace('key: id\n', 'key: id\nidentity: [id]\n'));
    // The deal update method is part of every mapping's fingerprint, but changes no event.
    const other = await night(['--deal-update-method', 'PUT']);
    expect(other.code).toBe(0);
    expect(other.stderr).toContain('already_sent 10');
    // Renamed, the events get new identities: every past one looks new.
    writeFileSync(
      join(dir, 'events.yaml'),
      EVENTS.replace('key: id\n', 'key: id\nidentity: [id]\n').replace('Visited', 'Visit'),
    );
    const refused = await night();
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('events.csv: 10 of 10 events look new');
    expect(eventRequests(sandbox)).toBe(10);
  });

  it('with identity: and the name read from a column, a map that renames some events holds them back', async () => {
    // Two of ten events are named `Signup`; the rest `visit`.
    const named = EVENTS.replace('key: id\n', 'key: id\nidentity: [id]\n').replace(
      'name: { value: Visited }',
      'name: { column: event }',
    );
    const lines = [
      'id,user,event',
      ...Array.from({ length: 10 }, (_, i) => `E${i},${i % 3},${i < 2 ? 'Signup' : 'visit'}`),
    ];
    const { dir, night } = await afterFirstNightOf(named, lines);
    writeFileSync(
      join(dir, 'events.yaml'),
      named.replace('name: { column: event }', 'name: { column: event, map: { Signup: signup, visit: visit } }'),
    );
    const refused = await night();
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('events.csv: 2 of 10 events look new');
    expect(eventRequests(sandbox)).toBe(10);
  });

  it('with identity: and the name read from a column, a field added and one new event: not held back (no name changed)', async () => {
    const named = EVENTS.replace('key: id\n', 'key: id\nidentity: [id]\n').replace(
      'name: { value: Visited }',
      'name: { column: event }',
    );
    const lines = ['id,user,event', ...Array.from({ length: 10 }, (_, i) => `E${i},${i % 3},visit`)];
    const { dir, night } = await afterFirstNightOf(named, lines);
    writeFileSync(join(dir, 'events.yaml'), `${named}  data.origin: { value: shop }\n`);
    writeFileSync(join(dir, 'events.csv'), `${lines.join('\n')}\nE10,0,visit\n`);
    const r = await night();
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain('ok 1, already_sent 10');
    expect(eventRequests(sandbox)).toBe(11);
  });

  it('with identity:, another encoding for the same file is a change: the events it renames are held back', async () => {
    const withIdentity = EVENTS.replace('key: id\n', 'key: id\nidentity: [id]\n');
    sandbox = await startSandbox({ rate: 0 });
    const dir = nightlyJob();
    // Two ids hold the byte 0xB3: `³` in latin1, `Ł` in windows-1250.
    writeFileSync(join(dir, 'events.csv'), Buffer.from('id,user\n\xb3A1,0\n\xb3A2,1\nX3,2\n', 'latin1'));
    const mapping = (encoding: string) =>
      withIdentity.replace('source: { file: events.csv }', `source: { file: events.csv, encoding: ${encoding} }`);
    writeFileSync(join(dir, 'events.yaml'), mapping('latin1'));
    const env = { ENGAGE_API_KEY: sandbox.apiKey, ENGAGE_BASE_URL: sandbox.url };
    const night = () => runCli(['import', 'job.yaml', '--rate', '1000'], { cwd: dir, env });
    expect((await night()).code).toBe(0);
    writeFileSync(join(dir, 'events.yaml'), mapping('windows-1250'));
    const refused = await night();
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('events.csv: 2 of 3 events look new');
    expect(eventRequests(sandbox)).toBe(3);
  });

  it('a state that missed the last run (a kill -9 between the two commits) is caught up before the check', async () => {
    const { dir, night } = await afterFirstNight(EVENTS.replace('key: id\n', 'key: id\nidentity: [id]\n'));
    // The state as a kill -9 between the ledger's commit and the state's leaves it: night 1's rows are only in its ledger.
    const sync = join(dir, '.engage-import', 'sync');
    const db = new Database(join(sync, readdirSync(sync).find((f) => f.endsWith('.sqlite'))!));
    db.exec('DELETE FROM events; DELETE FROM entities; DELETE FROM applied;');
    db.close();
    // A field added: with identity: [id], no event's identity changes.
    writeFileSync(
      join(dir, 'events.yaml'),
      `${EVENTS.replace('key: id\n', 'key: id\nidentity: [id]\n')}  data.channel: { value: web }\n`,
    );
    const r = await night();
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain('already_sent 10');
    expect(eventRequests(sandbox)).toBe(10);
  });

  it("another event mapping's change does not hold back this file's new events", async () => {
    const { dir, night } = await afterFirstNight();
    // A second event file, known by its id cells, joins the job; accepted once, as new.
    writeFileSync(join(dir, 'refunds.csv'), 'rid,user\nR1,0\nR2,1\n');
    const refunds =
      'resource: event\nsource: { file: refunds.csv }\nkey: rid\nidentity: [rid]\nfields:\n  user_custom_id: user\n  name: { value: Refunded }\n';
    writeFileSync(join(dir, 'refunds.yaml'), refunds);
    writeFileSync(join(dir, 'job.yaml'), 'mappings: [events.yaml, refunds.yaml, contacts.yaml]\nsync: incremental\n');
    expect((await night(['--accept-mapping-change'])).code).toBe(0);
    expect(eventRequests(sandbox)).toBe(12);
    // Night 3: the refunds mapping gains a field (its events keep their identities), and the
    // visits file, whose mapping is as it was, has one new event.
    writeFileSync(join(dir, 'refunds.yaml'), `${refunds}  data.reason: { value: damaged }\n`);
    writeFileSync(join(dir, 'events.csv'), `${readFileSync(join(dir, 'events.csv'), 'utf8')}E10,0\n`);
    const r = await night();
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/events\.csv\s+event\s+ok 1, already_sent 10/);
    expect(r.stderr).toMatch(/refunds\.csv\s+event\s+already_sent 2/);
    expect(eventRequests(sandbox)).toBe(13);
  });

  it('a mapping edited to equal another of the job is held back: its requests changed', async () => {
    const { dir, night } = await afterFirstNight();
    // A second event file whose mapping adds a channel; accepted once, as new.
    writeFileSync(join(dir, 'store.csv'), 'id,user\nS1,0\nS2,1\n');
    const store = `${EVENTS.replace('events.csv', 'store.csv')}  data.channel: { value: store }\n`;
    writeFileSync(join(dir, 'store.yaml'), store);
    writeFileSync(join(dir, 'job.yaml'), 'mappings: [events.yaml, store.yaml, contacts.yaml]\nsync: incremental\n');
    expect((await night(['--accept-mapping-change'])).code).toBe(0);
    expect(eventRequests(sandbox)).toBe(12);
    // The channel dropped: store.yaml now reads as events.yaml does, and every store event's request changed.
    writeFileSync(join(dir, 'store.yaml'), EVENTS.replace('events.csv', 'store.csv'));
    const refused = await night();
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('store.csv: 2 of 2 events look new, and its mapping changed');
    expect(eventRequests(sandbox)).toBe(12);
  });

  it('a change to another mapping of the job does not hold the events back', async () => {
    sandbox = await startSandbox({ rate: 0 });
    const dir = nightlyJob();
    const env = { ENGAGE_API_KEY: sandbox.apiKey, ENGAGE_BASE_URL: sandbox.url };
    expect((await runCli(['import', 'job.yaml'], { cwd: dir, env })).code).toBe(0);
    writeFileSync(
      join(dir, 'contacts.yaml'),
      'resource: user\nsource: { file: contacts.csv }\nkey: custom_id\nfields: { custom_id: custom_id, last_name: name }\n',
    );
    const r = await runCli(['import', 'job.yaml', '--rate', '1000'], { cwd: dir, env });
    expect(r.code).toBe(0);
    expect(r.stderr).toContain('already_sent 10');
  });
});
