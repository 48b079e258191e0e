import { readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import Database from 'better-sqlite3';
import { join } from 'node:path';
import { parse } from 'csv-parse/sync';
import { afterEach, describe, expect, it } from 'vitest';
import { startSandbox, type Sandbox } from '../../src/sandbox/index.js';
import { runCli } from '../helpers/run-cli.js';
import { tmpTree } from '../helpers/tmp.js';
import { fastClock } from '../helpers/fast-clock.js';

let sandbox: Sandbox | undefined;
afterEach(async () => {
  await sandbox?.close();
  sandbox = undefined;
});

type Line = Record<string, string>;

const CONTACTS_MAPPING =
  'resource: user\nsource: { file: contacts.csv }\nkey: custom_id\nfields: { custom_id: custom_id, email: email }\n';
const EVENTS_MAPPING =
  'resource: event\nsource: { file: events.csv }\nkey: row\nfields:\n  user_custom_id: customer\n  name: event\n  data.row: row\n';

/** A job folder; `day` rewrites its CSVs. */
function jobFolder(sync = ''): { dir: string; day: (contacts: string[], events: string[]) => void } {
  const dir = tmpTree();
  writeFileSync(join(dir, 'contacts.yaml'), CONTACTS_MAPPING);
  writeFileSync(join(dir, 'events.yaml'), EVENTS_MAPPING);
  writeFileSync(join(dir, 'job.yaml'), `${sync}mappings: [contacts.yaml, events.yaml]\n`);
  return {
    dir,
    day: (contacts, events) => {
      writeFileSync(join(dir, 'contacts.csv'), ['custom_id,email', ...contacts, ''].join('\n'));
      writeFileSync(join(dir, 'events.csv'), ['row,customer,event', ...events, ''].join('\n'));
    },
  };
}

async function run(dir: string, extra: string[] = []) {
  const report = join(dir, `report-${Math.random().toString(36).slice(2)}.csv`);
  const r = await runCli(
    [
      'import',
      'job.yaml',
      '--base-url',
      sandbox!.url,
      '--report',
      report,
      '--state-dir',
      'state',
      '--rate',
      '1000',
      '--quiet',
      ...extra,
    ],
    {
      cwd: dir,
      env: { ENGAGE_API_KEY: sandbox!.apiKey },
      clock: fastClock(),
    },
  );
  const lines = parse(readFileSync(report), { columns: true }) as Line[];
  return {
    ...r,
    lines,
    status: (key: string, file = '') =>
      lines.filter((l) => l.key === key && (l.file ?? '').includes(file)).map((l) => l.status),
  };
}

/** `METHOD path custom_id-or-row` of each request the sandbox received since `from`. */
const requestsSince = (from: number) =>
  sandbox!.requests.slice(from).map((q) => {
    const b = q.body as { custom_id?: string; data?: { row?: string } } | undefined;
    return `${q.method} ${q.path.replace('/api/public/', '')} ${b?.custom_id ?? b?.data?.row ?? ''}`;
  });

describe('incremental runs against the sandbox', () => {
  it('day 2 sends only changed and new rows, retries what failed on day 1, and reports duplicates superseded', async () => {
    sandbox = await startSandbox({ rate: 0 });
    const job = jobFolder();
    // Day 1: a plain run (no --incremental) still records what it sent. E-3's contact does not exist: it fails.
    job.day(
      ['C-1,a@example.com', 'C-2,b@example.com', 'C-3,c@example.com'],
      ['E-1,C-1,Login', 'E-2,C-2,Login', 'E-3,C-9,Login'],
    );
    const day1 = await run(job.dir);
    expect(day1.code).toBe(1);
    expect(day1.status('E-3')).toEqual(['failed']);
    const before = sandbox.requests.length;

    // Day 2: C-2 changed, C-4 new, C-9 new (so E-3 can go now), C-4 twice (the later row wins), E-4 new, E-1 and E-2 again.
    job.day(
      [
        'C-1,a@example.com',
        'C-2,b2@example.com',
        'C-3,c@example.com',
        'C-4,old@example.com',
        'C-9,z@example.com',
        'C-4,d@example.com',
      ],
      ['E-1,C-1,Login', 'E-2,C-2,Login', 'E-3,C-9,Login', 'E-4,C-3,Login', 'E-4,C-3,Login'],
    );
    const day2 = await run(job.dir, ['--incremental']);
    expect(day2.stderr).toBe('');
    expect(day2.code).toBe(0);
    expect(day2.lines.map((l) => `${l.key}:${l.status}`)).toEqual([
      'C-1:unchanged',
      'C-2:ok',
      'C-3:unchanged',
      'C-4:superseded',
      'C-9:ok',
      'C-4:ok',
      'E-1:already_sent',
      'E-2:already_sent',
      'E-3:ok',
      'E-4:ok',
      'E-4:superseded',
    ]);
    expect(day2.lines.find((l) => l.key === 'C-4' && l.status === 'superseded')?.message).toBe(
      'superseded by line 7, which has the same custom_id=C-4: the later row of a key wins, and its line says how it went',
    );
    expect(requestsSince(before).sort()).toEqual(
      [
        'POST users/update_or_create/ C-2',
        'POST users/update_or_create/ C-9',
        'POST users/update_or_create/ C-4',
        'POST users-by-id/C-9/events/ E-3',
        'POST users-by-id/C-3/events/ E-4',
      ].sort(),
    );

    // Day 3, the same files: nothing to send.
    const third = sandbox.requests.length;
    const day3 = await run(job.dir, ['--incremental']);
    expect(day3.code).toBe(0);
    expect(requestsSince(third)).toEqual([]);
    expect(new Set(day3.lines.map((l) => l.status))).toEqual(new Set(['unchanged', 'already_sent', 'superseded']));

    // --full-refresh sends every contact again except the superseded ones, and never an event the
    // state holds (it would be recorded twice): those stay already_sent, saying so.
    const fourth = sandbox.requests.length;
    const preview = await runCli(
      ['validate', 'job.yaml', '--full-refresh', '--state-dir', 'state', '--report', 'refresh-preview.csv'],
      { cwd: job.dir },
    );
    expect(preview.code).toBe(0);
    expect(preview.stderr).toMatch(/Live import: 5 requests/);
    // The contacts the state holds as they are: unchanged, and said to be sent again all the same.
    const previewLines = parse(readFileSync(join(job.dir, 'refresh-preview.csv')), { columns: true }) as Line[];
    const previewed = previewLines.filter((l) => l.status === 'unchanged');
    expect(previewed).toHaveLength(5);
    for (const l of previewed)
      expect(l.message).toMatch(/^same request as accepted by run \S+ at \S+; sent again \(a full refresh\)$/);
    const refresh = await run(job.dir, ['--full-refresh']);
    expect(refresh.code).toBe(0);
    expect(
      refresh.lines.filter((l) => l.resource === 'user').every((l) => l.status === 'ok' || l.status === 'superseded'),
    ).toBe(true);
    const resent = requestsSince(fourth);
    expect(resent).toHaveLength(5);
    expect(resent.every((r) => r.startsWith('POST users/update_or_create/'))).toBe(true);
    const events = refresh.lines.filter((l) => l.resource === 'event');
    expect(events.length).toBeGreaterThan(0);
    for (const e of events) {
      expect(e.status).toBe('already_sent');
      expect(e.message).toContain('a full refresh does not send an event again (it would be recorded twice)');
    }
  });

  it('sync: incremental in the job file works without the flag', async () => {
    sandbox = await startSandbox({ rate: 0 });
    const job = jobFolder('sync: incremental\n');
    job.day(['C-1,a@example.com'], ['E-1,C-1,Login']);
    expect((await run(job.dir)).code).toBe(0);
    const before = sandbox.requests.length;
    const again = await run(job.dir);
    expect(again.lines.map((l) => l.status)).toEqual(['unchanged', 'already_sent']);
    expect(sandbox.requests.length).toBe(before);
  });

  it('a state recorded against another account is refused before anything is sent (exit 2)', async () => {
    sandbox = await startSandbox({ rate: 0 });
    const job = jobFolder();
    job.day(['C-1,a@example.com'], ['E-1,C-1,Login']);
    expect((await run(job.dir)).code).toBe(0);
    const other = await startSandbox({ rate: 0 });
    try {
      const before = other.requests.length;
      const report = join(job.dir, 'other.csv');
      const r = await runCli(
        [
          'import',
          'job.yaml',
          '--base-url',
          other.url,
          '--report',
          report,
          '--state-dir',
          'state',
          '--incremental',
          '--quiet',
        ],
        { cwd: job.dir, env: { ENGAGE_API_KEY: `${sandbox.apiKey}x` } },
      );
      expect(r.code).toBe(2);
      expect(r.stderr).toMatch(/sync state .* records what was sent with the base URL .*; nothing was sent/);
      expect(other.requests.length).toBe(before);
      // The preview for that account is refused too, rather than calling its rows unchanged.
      const cwd = job.dir;
      const preview = (env: Record<string, string>) =>
        runCli(['validate', 'job.yaml', '--incremental', '--state-dir', 'state', '--report', 'p.csv'], { cwd, env });
      const elsewhere = await preview({ ENGAGE_BASE_URL: other.url });
      expect(elsewhere.code).toBe(2);
      expect(elsewhere.stderr).toMatch(/records what was sent with the base URL .*, not .*; nothing was sent/);
      const otherKey = await preview({ ENGAGE_API_KEY: `${sandbox!.apiKey}x` });
      expect(otherKey.code).toBe(2);
      expect(otherKey.stderr).toContain('records what was sent with another API key (another account?)');
      // Its own account, or nothing said: the preview runs.
      expect((await preview({ ENGAGE_BASE_URL: sandbox!.url, ENGAGE_API_KEY: sandbox!.apiKey })).code).toBe(0);
      expect((await preview({})).code).toBe(0);
      // The flags of import --dry-run come first, as in the live run; a base URL that is not one is not compared.
      writeFileSync(join(cwd, 'key.txt'), `${sandbox!.apiKey}\n`);
      const dryRun = await runCli(
        [
          ...['import', 'job.yaml', '--dry-run', '--incremental', '--state-dir', 'state', '--report', 'd.csv'],
          ...['--base-url', sandbox!.url, '--api-key-file', 'key.txt'],
        ],
        { cwd, env: { ENGAGE_BASE_URL: other.url, ENGAGE_API_KEY: `${sandbox!.apiKey}x` } },
      );
      expect([dryRun.code, dryRun.stderr]).toEqual([0, expect.stringContaining('Live import:')]);
      expect((await preview({ ENGAGE_BASE_URL: 'acme.example.com' })).code).toBe(0);
    } finally {
      await other.close();
    }
  });

  it('a sparse change under bulk imports fills one chunk: the unchanged lines wait behind it on disk, and the report keeps every line in order', async () => {
    sandbox = await startSandbox({ rate: 0, bulkRowsPerS: 0 });
    const { dir, day } = jobFolder();
    const contacts = (changed: (i: number) => boolean) =>
      Array.from({ length: 60_000 }, (_, i) => `C-${i},c${i}${changed(i) ? '.new' : ''}@example.com`);
    day(
      contacts(() => false),
      [],
    );
    const day1 = await run(dir, ['--incremental', '--bulk', 'always']);
    expect(day1.code).toBe(0);
    // Day 2: 1 contact in 100 changed, spread over the whole file (600 rows).
    day(
      contacts((i) => i % 100 === 42),
      [],
    );
    const before = sandbox.requests.length;
    const day2 = await run(dir, ['--incremental']);
    expect(day2.code).toBe(0);
    expect(day2.lines.map((l) => Number(l.line))).toEqual(Array.from({ length: 60_000 }, (_, i) => i + 2));
    const changed = day2.lines.filter((l) => l.status === 'ok');
    expect(changed.map((l) => l.key)).toEqual(Array.from({ length: 600 }, (_, k) => `C-${k * 100 + 42}`));
    expect(day2.lines.filter((l) => l.status === 'unchanged')).toHaveLength(59_400);
    // One upload carried the 600 rows: the 59,400 lines between them did not close the chunk early.
    const uploads = sandbox.requests.slice(before).filter((q) => q.method === 'POST');
    expect(uploads.map((q) => q.path)).toEqual(['/api/public/users/import/']);
    expect(sandbox.requests.slice(before).filter((q) => q.method === 'IMPORT')).toHaveLength(600);
    // The lines held on disk were a run's working file, deleted at the stage's end.
    const runs = join(dir, 'state', 'runs');
    const left = readdirSync(runs, { recursive: true }).map(String);
    expect(left.filter((f) => f.includes('held-lines'))).toEqual([]);
  }, 120_000);

  /** A products job: day 1 sends P-1 and P-2 per row (2 rows, under --bulk-min-rows); day 2 changes P-2 and adds P-3. */
  async function productDays(day2Args: string[]) {
    sandbox = await startSandbox({ rate: 0, bulkRowsPerS: 0 });
    const dir = tmpTree();
    writeFileSync(
      join(dir, 'products.yaml'),
      'resource: product\nsource: { file: products.csv }\nkey: sku\nfields: { custom_id: sku, name: name }\n',
    );
    writeFileSync(join(dir, 'job.yaml'), 'mappings: [products.yaml]\n');
    writeFileSync(join(dir, 'products.csv'), 'sku,name\nP-1,Mug\nP-2,Cup\n');
    const day1 = await run(dir, ['--incremental']);
    expect(day1.code).toBe(0);
    expect(requestsSince(0)).toEqual(['POST products/ P-1', 'POST products/ P-2']);
    writeFileSync(join(dir, 'products.csv'), 'sku,name\nP-1,Mug\nP-2,Big cup\nP-3,Plate\n');
    const before = sandbox.requests.length;
    return { dir, before, day2: await run(dir, ['--incremental', ...day2Args]) };
  }

  it('a stage with a changed product goes by bulk import under --bulk auto, however small: the change reaches the account', async () => {
    const { dir, before, day2 } = await productDays([]);
    expect(day2.code).toBe(0);
    expect(day2.lines.map((l) => `${l.key}:${l.status}`)).toEqual(['P-1:unchanged', 'P-2:ok', 'P-3:ok']);
    const importId = /^imported by bulk import ([0-9a-f-]{36})$/.exec(day2.lines[1]?.message ?? '')?.[1];
    expect(importId).toBeDefined();
    expect(day2.lines[2]?.message).toBe(`imported by bulk import ${importId}`);
    // One upload (the sandbox logs each row it applies as IMPORT), then its status polls; no per-row product request.
    const paths = sandbox!.requests.slice(before).map((q) => `${q.method} ${q.path.replace('/api/public/', '')}`);
    expect(paths.slice(0, 3)).toEqual(['POST products/import/', 'IMPORT products/import/', 'IMPORT products/import/']);
    expect(paths.length).toBeGreaterThan(3);
    expect(new Set(paths.slice(3))).toEqual(new Set([`GET import/status/?import_id=${importId}`]));
    expect(
      sandbox!.state
        .products()
        .map((p) => `${p.custom_id}:${p.name}`)
        .sort(),
    ).toEqual(['P-1:Mug', 'P-2:Big cup', 'P-3:Plate']);
    // The import's rows entered the sync state: day 3 with the same file sends nothing.
    const day3Before = sandbox!.requests.length;
    const day3 = await run(dir, ['--incremental']);
    expect(day3.code).toBe(0);
    expect(day3.lines.map((l) => l.status)).toEqual(['unchanged', 'unchanged', 'unchanged']);
    expect(sandbox!.requests.length).toBe(day3Before);
  });

  it('a changed product whose new value no CSV cell carries (null) is failed with what to change, not told to use the bulk mode it is in', async () => {
    sandbox = await startSandbox({ rate: 0, bulkRowsPerS: 0 });
    const dir = tmpTree({
      'products.yaml':
        'resource: product\nsource: { file: products.csv }\nkey: sku\nfields: { custom_id: sku, name: { column: name, empty: "null" } }\n',
      'job.yaml': 'mappings: [products.yaml]\n',
      'products.csv': 'sku,name\nP-1,Mug\n',
    });
    expect((await run(dir, ['--incremental'])).code).toBe(0);
    writeFileSync(join(dir, 'products.csv'), 'sku,name\nP-1,\n');
    const day2 = await run(dir, ['--incremental', '--bulk', 'always']);
    expect(day2.lines.map((l) => `${l.key}:${l.status}`)).toEqual(['P-1:failed']);
    expect(day2.lines[0]?.message).toMatch(
      /\(this product changed since it was created, and products are updated only by the bulk import, which cannot carry name: null \(an empty cell means "no value"\): leave such a field out, with empty: omit, so that the import updates the rest\)$/,
    );
  });

  it('with --bulk never a changed product is sent, answered "already exists" and reported failed with how products are updated', async () => {
    const { before, day2 } = await productDays(['--bulk', 'never']);
    expect(day2.code).toBe(1);
    expect(day2.lines.map((l) => `${l.key}:${l.status}`)).toEqual(['P-1:unchanged', 'P-2:failed', 'P-3:ok']);
    expect(day2.lines[1]?.message).toMatch(
      /\(this product changed since it was created, and products are updated only by the bulk import: run with --bulk auto, or set bulk: true in the products mapping\)$/,
    );
    expect(requestsSince(before)).toEqual(['POST products/ P-2', 'POST products/ P-3']);
  });

  it('resume goes on in the mode the run started with', async () => {
    sandbox = await startSandbox({ rate: 0 });
    const job = jobFolder();
    job.day(['C-1,a@example.com', 'C-2,b@example.com'], ['E-1,C-1,Login']);
    expect((await run(job.dir)).code).toBe(0);
    // Day 2 is interrupted before its first row (SIGINT): the run stays open for resume.
    job.day(['C-1,a@example.com', 'C-2,b2@example.com'], ['E-1,C-1,Login', 'E-2,C-2,Login']);
    const report = join(job.dir, 'stopped.csv');
    const interrupt = new AbortController();
    interrupt.abort('SIGINT');
    const stopped = await runCli(
      [
        'import',
        'job.yaml',
        '--incremental',
        '--base-url',
        sandbox.url,
        '--report',
        report,
        '--state-dir',
        'state',
        '--quiet',
      ],
      { cwd: job.dir, env: { ENGAGE_API_KEY: sandbox.apiKey }, signal: interrupt.signal },
    );
    expect(stopped.code).toBe(130);
    const before = sandbox.requests.length;
    const resumed = await runCli(
      [
        'resume',
        '--base-url',
        sandbox.url,
        '--report',
        join(job.dir, 'resumed.csv'),
        '--state-dir',
        'state',
        '--rate',
        '1000',
        '--quiet',
      ],
      { cwd: job.dir, env: { ENGAGE_API_KEY: sandbox.apiKey } },
    );
    expect(resumed.code).toBe(0);
    const lines = parse(readFileSync(join(job.dir, 'resumed.csv')), { columns: true }) as Line[];
    expect(lines.map((l) => `${l.key}:${l.status}`)).toEqual(['C-1:unchanged', 'C-2:ok', 'E-1:already_sent', 'E-2:ok']);
    expect(requestsSince(before)).toEqual(['POST users/update_or_create/ C-2', 'POST users-by-id/C-2/events/ E-2']);
  });
});

describe('two mappings of one resource', () => {
  it('neither mapping changed: the preview says nothing of mappings when most rows of one file changed', async () => {
    sandbox = await startSandbox({ rate: 0 });
    const dir = tmpTree({
      'job.yaml': 'mappings: [crm.yaml, phones.yaml]\n',
      'crm.yaml': 'resource: user\nsource: { file: crm.csv }\nkey: id\nfields: { custom_id: id, email: email }\n',
      'phones.yaml':
        'resource: user\nsource: { file: phones.csv }\nkey: id\nfields: { custom_id: id, phone_number: phone }\n',
      'crm.csv': 'id,email\nC-1,a@example.com\nC-2,b@example.com\nC-3,c@example.com\n',
      'phones.csv': 'id,phone\nC-1,+33612345678\n',
    });
    expect((await run(dir)).code).toBe(0);
    writeFileSync(join(dir, 'crm.csv'), 'id,email\nC-1,a2@example.com\nC-2,b2@example.com\nC-3,c@example.com\n');
    const preview = await runCli(['validate', 'job.yaml', '--incremental', '--state-dir', 'state'], { cwd: dir });
    expect(preview.code).toBe(0);
    expect(preview.stderr).not.toContain('its mapping changed');
    // Changing one of them does bring the note, for the file whose rows mostly changed.
    writeFileSync(
      join(dir, 'crm.yaml'),
      'resource: user\nsource: { file: crm.csv }\nkey: id\nfields: { custom_id: id, email: email, first_name: { value: X } }\n',
    );
    const changed = await runCli(['validate', 'job.yaml', '--incremental', '--state-dir', 'state'], { cwd: dir });
    expect(changed.stderr).toContain('crm.csv: most rows changed (3 of 3) and its mapping changed');
  });
});

describe('the preview says what the next run would send', () => {
  it('catches the state up with the run ledgers first, when no run holds the state directory', async () => {
    sandbox = await startSandbox({ rate: 0 });
    const job = jobFolder();
    job.day(['C-1,a@example.com', 'C-2,b@example.com'], ['E-1,C-1,Signed Up']);
    expect((await run(job.dir)).code).toBe(0);
    // The state missed what the run sent (a kill -9 between the ledger's commit and its own, or
    // a last apply that failed): the run's ledger still has it all.
    const [file] = readdirSync(join(job.dir, 'state', 'sync')).filter((f) => f.endsWith('.sqlite'));
    const db = new Database(join(job.dir, 'state', 'sync', file!));
    db.exec('DELETE FROM entities; DELETE FROM events; UPDATE applied SET seq = 0, complete = 0;');
    db.close();
    const preview = await runCli(
      ['validate', 'job.yaml', '--incremental', '--state-dir', 'state', '--report', 'preview.csv', '--quiet'],
      { cwd: job.dir },
    );
    expect(preview.code).toBe(0);
    const lines = parse(readFileSync(join(job.dir, 'preview.csv')), { columns: true }) as Line[];
    expect(lines.map((l) => `${l.key} ${l.status}`)).toEqual(['C-1 unchanged', 'C-2 unchanged', 'E-1 already_sent']);
    // The run that follows agrees and sends nothing.
    const before = sandbox.requests.length;
    expect((await run(job.dir, ['--incremental'])).code).toBe(0);
    expect(sandbox.requests.length).toBe(before);
  });

  it('never applies runs of another account: a state without a target is read as it is', async () => {
    sandbox = await startSandbox({ rate: 0 });
    const job = jobFolder();
    job.day(['C-1,a@example.com'], []);
    expect((await run(job.dir)).code).toBe(0);
    // A state that knows no target (deleted, then rebuilt empty) cannot tell whose runs these are.
    rmSync(join(job.dir, 'state', 'sync'), { recursive: true });
    const preview = await runCli(
      ['validate', 'job.yaml', '--incremental', '--state-dir', 'state', '--report', 'preview.csv', '--quiet'],
      { cwd: job.dir },
    );
    expect(preview.code).toBe(0);
    const lines = parse(readFileSync(join(job.dir, 'preview.csv')), { columns: true }) as Line[];
    expect(lines.map((l) => `${l.key} ${l.status}`)).toEqual(['C-1 new']);
    expect(readdirSync(join(job.dir, 'state'))).not.toContain('sync');
    // Against another account, the next run sends it: that account never got it.
    const other = await startSandbox({ rate: 0 });
    try {
      const r = await runCli(
        [
          'import',
          'job.yaml',
          '--incremental',
          '--state-dir',
          'state',
          '--base-url',
          other.url,
          '--rate',
          '1000',
          '--quiet',
        ],
        { cwd: job.dir, env: { ENGAGE_API_KEY: other.apiKey }, clock: fastClock() },
      );
      expect(r.code).toBe(0);
      expect(other.state.users().map((u) => u['custom_id'])).toEqual(['C-1']);
    } finally {
      await other.close();
    }
  });
});

describe('state forget', () => {
  it('applies what runs committed first, so a row the state had not applied yet is forgotten too', async () => {
    sandbox = await startSandbox({ rate: 0 });
    const job = jobFolder();
    job.day(['C-1,a@example.com', 'C-2,b@example.com'], []);
    expect((await run(job.dir)).code).toBe(0);
    // The state missed the run's rows (a kill -9 between the ledger's commit and its own).
    const [file] = readdirSync(join(job.dir, 'state', 'sync')).filter((f) => f.endsWith('.sqlite'));
    const db = new Database(join(job.dir, 'state', 'sync', file!));
    db.exec('DELETE FROM entities; UPDATE applied SET seq = 0, complete = 0;');
    db.close();
    const forget = await runCli(['state', 'forget', '--resource', 'user', '--key', 'C-1', '--state-dir', 'state'], {
      cwd: job.dir,
    });
    expect(forget.stderr).toContain('Forgot user C-1 (1 row)');
    const before = sandbox.requests.length;
    const next = await run(job.dir, ['--incremental']);
    expect(next.status('C-1')).toEqual(['ok']);
    expect(next.status('C-2')).toEqual(['unchanged']);
    expect(requestsSince(before)).toEqual(['POST users/update_or_create/ C-1']);
  });
});

describe('the preview chooses bulk as the live run does', () => {
  it('10 changed of 1,200 contacts: the stage goes by bulk (its size decides), one import of the 10 rows, in the preview and live', async () => {
    sandbox = await startSandbox({ rate: 0, bulkRowsPerS: 0 });
    const job = jobFolder();
    const contacts = (changed: boolean) =>
      Array.from({ length: 1200 }, (_, i) => `C-${i},c${i}${changed && i % 120 === 0 ? '.new' : ''}@example.com`);
    job.day(contacts(false), []);
    expect((await run(job.dir, ['--bulk', 'auto'])).code).toBe(0);
    job.day(contacts(true), []);
    const preview = await runCli(
      ['validate', 'job.yaml', '--incremental', '--state-dir', 'state', '--report', 'p.csv'],
      {
        cwd: job.dir,
      },
    );
    expect(preview.stderr).toMatch(/contacts\.csv\s+user\s+changed 10, unchanged 1,190\s+\(bulk: 1 import, /);
    const before = sandbox.requests.length;
    const live = await runCli(
      ['import', 'job.yaml', '--incremental', '--state-dir', 'state', '--base-url', sandbox.url, '--report', 'l.csv'],
      { cwd: job.dir, env: { ENGAGE_API_KEY: sandbox.apiKey }, clock: fastClock() },
    );
    expect(live.code).toBe(0);
    expect(live.stderr).toMatch(/contacts\.csv\s+user\s+bulk: 10 of 1,200 rows in 1 import, ok 10, unchanged 1,190/);
    const since = sandbox.requests.slice(before);
    expect(since.filter((q) => q.method === 'IMPORT')).toHaveLength(10);
    expect(since.filter((q) => q.method === 'POST')).toHaveLength(1);
  });
});
