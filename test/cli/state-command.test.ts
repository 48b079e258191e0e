import { execFileSync } from 'node:child_process';
import { existsSync, lstatSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { syncStateFile } from '../../src/sync/state-file.js';
import { SyncState } from '../../src/sync/sync-state.js';
import { runCli } from '../helpers/run-cli.js';
import { tmpTree } from '../helpers/tmp.js';
import { fakeFeed, hex } from '../sync/_feed.js';

let dirs: string[] = [];
afterEach(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
  dirs = [];
});

/** A project folder whose job has a state: two contacts, one deal, one event, from run r1. */
function project(): { dir: string; job: string; stateFile: string } {
  const dir = tmpTree({ 'nightly.yaml': 'mappings: [contacts.yaml]\n' });
  dirs.push(dir);
  const job = join(dir, 'nightly.yaml');
  const stateFile = syncStateFile(join(dir, '.engage-import'), job);
  const state = SyncState.open(stateFile, job, { mode: 'write' })!;
  state.apply(
    fakeFeed(
      '20261123T020000Z-0001',
      [
        { resource: 'user', kind: 'entity', key: 'custom_id=C-1', hash: hex('1') },
        { resource: 'user', kind: 'entity', key: 'custom_id=C-2', hash: hex('2') },
        { resource: 'deal', kind: 'entity', key: 'id=42', hash: hex('3') },
        { resource: 'event', kind: 'event', key: hex('e'), hash: hex('e') },
      ],
      { at: '2026-11-23T02:03:04.000Z' },
    ),
  );
  state.close();
  return { dir, job, stateFile };
}

describe('engage-import state', () => {
  it('show: counts per resource, the last run and the size', async () => {
    const { dir } = project();
    const r = await runCli(['state', 'show'], { cwd: dir });
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(
      /^Sync state of nightly\.yaml: \.engage-import\/sync\/nightly-[0-9a-f]{12}\.sqlite, [\d.]+ KB\n/,
    );
    expect(r.stdout).toContain(
      '  deal                         1 keys\n  user                         2 keys\n  event                        1 events\n',
    );
    expect(r.stdout).toContain('Last run: 20261123T020000Z-0001 (last accepted row 2026-11-23T02:03:04.000Z)');
    const json = JSON.parse((await runCli(['state', 'show', '--json'], { cwd: dir })).stdout) as {
      resources: unknown[];
      lastRun: { runId: string };
    };
    expect(json.resources).toHaveLength(3);
    expect(json.lastRun.runId).toBe('20261123T020000Z-0001');
  });

  it('show: a later run that accepted no row (every row unchanged) is the last run, and the last accepted row is named apart', async () => {
    const { dir, job, stateFile } = project();
    const state = SyncState.open(stateFile, job, { mode: 'write' })!;
    state.apply(fakeFeed('20261124T020000Z-0002', []));
    state.close();
    const r = await runCli(['state', 'show'], { cwd: dir });
    expect(r.stdout).toContain(
      'Last run: 20261124T020000Z-0002, which accepted no row; last accepted row 2026-11-23T02:03:04.000Z, by run 20261123T020000Z-0001\n',
    );
    const json = JSON.parse((await runCli(['state', 'show', '--json'], { cwd: dir })).stdout) as {
      latestRun: string;
      lastRun: { runId: string };
    };
    expect([json.latestRun, json.lastRun.runId]).toEqual(['20261124T020000Z-0002', '20261123T020000Z-0001']);
  });

  it('show: events in doubt are counted apart from the events accepted', async () => {
    const { dir, job, stateFile } = project();
    const state = SyncState.open(stateFile, job, { mode: 'write' })!;
    // A later run lost the answer of one event: in doubt, not accepted.
    state.apply(
      fakeFeed('20261124T020000Z-0002', [{ resource: 'event', kind: 'doubt', key: hex('d'), hash: hex('d') }]),
    );
    state.close();
    const r = await runCli(['state', 'show'], { cwd: dir });
    expect(r.stdout).toContain('  event                        1 events, 1 in doubt\n');
    const json = JSON.parse((await runCli(['state', 'show', '--json'], { cwd: dir })).stdout) as {
      resources: unknown[];
    };
    expect(json.resources).toContainEqual({ resource: 'event', kind: 'event', count: 1, inDoubt: 1 });
  });

  it('forget: one key, then a whole resource', async () => {
    const { dir } = project();
    let r = await runCli(['state', 'forget', '--resource', 'user', '--key', 'C-1'], { cwd: dir });
    expect([r.code, r.stderr]).toEqual([0, 'Forgot user C-1 (1 row): the next incremental run sends it again.\n']);
    r = await runCli(['state', 'forget', '--resource', 'user', '--key', 'C-1'], { cwd: dir });
    expect(r.stderr).toBe('The sync state holds nothing for user C-1; nothing changed.\n');
    r = await runCli(['state', 'forget', '--resource', 'event'], { cwd: dir });
    expect(r.stderr).toBe('Forgot every event row (1 row): the next incremental run sends it again.\n');
    expect((await runCli(['state', 'show'], { cwd: dir })).stdout).not.toContain('event ');
  });

  it('forget takes the plural names, and says what the next run makes of a forgotten product or an event named by its report key', async () => {
    const { dir, job, stateFile } = project();
    const state = SyncState.open(stateFile, job, { mode: 'write' })!;
    state.apply(
      fakeFeed('20261123T030000Z-0002', [
        { resource: 'product', kind: 'entity', key: 'custom_id=P-1', hash: hex('4') },
      ]),
    );
    state.close();
    let r = await runCli(['state', 'forget', '--resource', 'contacts', '--key', 'C-2'], { cwd: dir });
    expect([r.code, r.stderr]).toEqual([0, 'Forgot user C-2 (1 row): the next incremental run sends it again.\n']);
    r = await runCli(['state', 'forget', '--resource', 'products'], { cwd: dir });
    expect(r.stderr).toBe(
      'Forgot every product row (1 row): the next incremental run sends it again. A product the account has already is refused as existing by a per-row create (POST products/ only creates): send it by bulk import (--bulk always, or bulk: true in the mapping), which updates a product by its custom_id.\n',
    );
    r = await runCli(['state', 'forget', '--resource', 'events', '--key', 'EV-0001'], { cwd: dir });
    expect([r.code, r.stderr]).toEqual([
      0,
      'The sync state holds nothing for event EV-0001; nothing changed. Events are kept by their identity, a hash (the "identity" of their lines in state export), not by the report\'s key: give that hash, or forget every event row.\n',
    ]);
    r = await runCli(['state', 'forget', '--resource', 'event', '--key', hex('e')], { cwd: dir });
    expect(r.stderr).toBe(`Forgot event ${hex('e')} (1 row): the next incremental run sends it again.\n`);
  });

  it('forget needs --resource, and refuses while a run holds the state directory', async () => {
    const { dir } = project();
    expect((await runCli(['state', 'forget'], { cwd: dir })).code).toBe(2);
    writeFileSync(
      join(dir, '.engage-import', 'lock'),
      JSON.stringify({ pid: process.pid, hostname: hostname(), startedAt: new Date().toISOString(), token: 'x' }),
    );
    const r = await runCli(['state', 'forget', '--resource', 'user'], { cwd: dir });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('is in use by another engage-import run');
  });

  it('export, then import into a fresh state directory (a new container)', async () => {
    const { dir, job } = project();
    const r = await runCli(['state', 'export', 'state.ndjson'], { cwd: dir });
    expect([r.code, r.stderr]).toEqual([0, 'Exported 5 rows of the sync state of nightly.yaml to state.ndjson.\n']);
    rmSync(join(dir, '.engage-import'), { recursive: true });
    const i = await runCli(['state', 'import', 'state.ndjson'], { cwd: dir });
    expect(i.code).toBe(0);
    expect(i.stderr).toMatch(/^Imported 5 rows into the sync state of nightly\.yaml/);
    expect(existsSync(syncStateFile(join(dir, '.engage-import'), job))).toBe(true);
    expect((await runCli(['state', 'show'], { cwd: dir })).stdout).toContain('  user                         2 keys\n');
    // Streaming both ways: the export is one JSON object a line.
    expect(readFileSync(join(dir, 'state.ndjson'), 'utf8').trim().split('\n')).toHaveLength(7);
  });

  it('a refused import into a directory without a state leaves no state behind', async () => {
    const { dir, job } = project();
    rmSync(join(dir, '.engage-import'), { recursive: true });
    writeFileSync(
      join(dir, 'cut.ndjson'),
      `${JSON.stringify({ format: 'engage-import sync state', version: 1, job, exported_at: '2026-11-23T08:00:00.000Z' })}\n`,
    );
    const r = await runCli(['state', 'import', 'cut.ndjson'], { cwd: dir });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('the file ends before its end line (cut short?); the sync state was not changed');
    expect(existsSync(syncStateFile(join(dir, '.engage-import'), job))).toBe(false);
  });

  it('export refuses a file inside the state directory, the state file itself included, and changes nothing', async () => {
    const { dir, stateFile } = project();
    const before = readFileSync(stateFile);
    for (const target of [stateFile, '.engage-import/state.ndjson']) {
      const r = await runCli(['state', 'export', target], { cwd: dir });
      expect(r.code).toBe(2);
      expect(r.stderr).toContain('is inside the state directory .engage-import, beside the state and the run ledgers');
    }
    expect(readFileSync(stateFile).equals(before)).toBe(true);
    expect(existsSync(join(dir, '.engage-import/state.ndjson'))).toBe(false);
    expect((await runCli(['state', 'show'], { cwd: dir })).code).toBe(0);
  });

  it('refuses a state of a newer format and a damaged one, and says nothing was sent', async () => {
    const { dir, stateFile } = project();
    const db = new Database(stateFile);
    db.pragma('user_version = 9');
    db.close();
    let r = await runCli(['state', 'show'], { cwd: dir });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(
      /^engage-import: the sync state \.engage-import\/sync\/nightly-[0-9a-f]{12}\.sqlite was written by a newer engage-import \(format 9; this one reads format 1\)/,
    );
    writeFileSync(stateFile, 'x'.repeat(8192));
    r = await runCli(['state', 'show'], { cwd: dir });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('is damaged');
  });

  it('asks which job when the directory holds several states, and says when there is none', async () => {
    const { dir } = project();
    const other = SyncState.open(
      syncStateFile(join(dir, '.engage-import'), join(dir, 'other.yaml')),
      join(dir, 'other.yaml'),
      { mode: 'write' },
    )!;
    other.close();
    let r = await runCli(['state', 'show'], { cwd: dir });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('holds the sync states of 2 jobs');
    r = await runCli(['state', 'show', '--job', 'nightly.yaml'], { cwd: dir });
    expect(r.code).toBe(0);
    r = await runCli(['state', 'show', '--state-dir', 'elsewhere'], { cwd: dir });
    expect([r.code, r.stderr]).toEqual([
      2,
      'engage-import: there is no sync state in elsewhere (a run with --incremental, or any run, creates it beside its job file: name the job with --job, or the folder with --state-dir)\n',
    ]);
  });

  it('with --job, the state is the one beside the job file, as runs keep it, from any folder', async () => {
    const { dir } = project();
    const elsewhere = tmpTree({});
    dirs.push(elsewhere);
    const r = await runCli(['state', 'show', '--job', join(dir, 'nightly.yaml')], { cwd: elsewhere });
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('  user                         2 keys\n');
  });

  it('export writes over an earlier export only, never over the job, a mapping or an input file', async () => {
    const { dir, job } = project();
    writeFileSync(join(dir, 'contacts.csv'), 'custom_id,email\nC-1,a@example.com\n');
    for (const target of ['nightly.yaml', 'contacts.csv']) {
      const before = readFileSync(join(dir, target), 'utf8');
      const r = await runCli(['state', 'export', target], { cwd: dir });
      expect([r.code, r.stderr]).toEqual([
        2,
        `engage-import: state export: ${target} exists and is not a sync state export (it may be the job, a mapping or an input file): write the export to a new file, or over an earlier export\n`,
      ]);
      expect(readFileSync(join(dir, target), 'utf8')).toBe(before);
    }
    expect(readFileSync(job, 'utf8')).toBe('mappings: [contacts.yaml]\n');
    expect((await runCli(['state', 'export', 'state.ndjson'], { cwd: dir })).code).toBe(0);
    expect((await runCli(['state', 'export', 'state.ndjson'], { cwd: dir })).code).toBe(0);
    // A file whose first line never ends (1 MB of it) is not an export either; a folder is no file.
    writeFileSync(join(dir, 'big.dat'), 'x'.repeat(1 << 20));
    let r = await runCli(['state', 'export', 'big.dat'], { cwd: dir });
    expect([r.code, r.stderr]).toEqual([2, expect.stringContaining('big.dat exists and is not a sync state export')]);
    r = await runCli(['state', 'export', '.'], { cwd: dir });
    expect([r.code, r.stderr]).toEqual([2, expect.stringContaining('state export: . is a folder')]);
    // A link (even to an earlier export), a pipe or a device stays what it is: the export would
    // be renamed over it.
    symlinkSync('state.ndjson', join(dir, 'link.ndjson'));
    execFileSync('mkfifo', [join(dir, 'fifo')]);
    for (const target of ['link.ndjson', 'fifo', '/dev/null']) {
      r = await runCli(['state', 'export', target], { cwd: dir });
      expect([r.code, r.stderr]).toEqual([
        2,
        `engage-import: state export: ${target} is not a regular file (a link, a device or a pipe): write the export to a new file, or over an earlier export\n`,
      ]);
    }
    expect(lstatSync(join(dir, 'link.ndjson')).isSymbolicLink()).toBe(true);
    expect(lstatSync(join(dir, 'fifo')).isFIFO()).toBe(true);
    expect(lstatSync('/dev/null').isCharacterDevice()).toBe(true);
  });

  it('import restores the state beside the job it is for: the same job moved to a fresh folder, never another job', async () => {
    const { dir } = project();
    expect((await runCli(['state', 'export', 'state.ndjson'], { cwd: dir })).code).toBe(0);
    // A fresh container: the same job at another path, the export copied in, no state yet.
    const fresh = tmpTree({
      'nightly.yaml': 'mappings: [contacts.yaml]\n',
      'other.yaml': 'mappings: [contacts.yaml]\n',
      'state.ndjson': readFileSync(join(dir, 'state.ndjson'), 'utf8'),
    });
    dirs.push(fresh);
    // While the exported job is on this machine too, a job of the same name elsewhere is another job.
    const copy = await runCli(['state', 'import', 'state.ndjson', '--job', 'nightly.yaml'], { cwd: fresh });
    expect(copy.code).toBe(2);
    expect(copy.stderr).toContain(
      `the export is of the job ${join(dir, 'nightly.yaml')}, which is on this machine too, and nightly.yaml is another job of the same name: a state restored into it would call its rows sent`,
    );
    expect(existsSync(join(fresh, '.engage-import', 'sync'))).toBe(false);
    // The job the export names is not here: which job is it for?
    rmSync(dir, { recursive: true, force: true });
    let r = await runCli(['state', 'import', 'state.ndjson'], { cwd: fresh });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(
      'which is not there on this machine; name the job to restore it for: engage-import state import FILE --job path/to/nightly.yaml; the sync state was not changed',
    );
    // Another job's state: refused.
    r = await runCli(['state', 'import', 'state.ndjson', '--job', 'other.yaml'], { cwd: fresh });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(', not other.yaml: a state restored into another job would call its rows sent');
    expect(existsSync(join(fresh, '.engage-import', 'sync'))).toBe(false);
    // A job file that is not there (a typo, the wrong folder): refused, not restored where no run reads it.
    r = await runCli(['state', 'import', 'state.ndjson', '--job', 'jobs/nightly.yaml'], { cwd: fresh });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(
      'there is no job file jobs/nightly.yaml: a state restored for it would sit where no run reads it',
    );
    expect(existsSync(join(fresh, 'jobs'))).toBe(false);
    // The same job, moved: restored beside it, where its runs and its preview look.
    const job = join(fresh, 'nightly.yaml');
    r = await runCli(['state', 'import', 'state.ndjson', '--job', 'nightly.yaml'], { cwd: fresh });
    expect(r.code).toBe(0);
    expect(existsSync(syncStateFile(join(fresh, '.engage-import'), job))).toBe(true);
    expect((await runCli(['state', 'show', '--job', job], { cwd: tmpTree({}) })).stdout).toContain(
      '  user                         2 keys\n',
    );
  });
});
