/**
 * kill -9 of a real importer process in the middle of a bisection (the re-uploads that name the
 * failures an import counted but did not list), then `resume`. Checked in the sandbox's request
 * log and the ledger the killed run left: no import whose id was recorded is uploaded again (its
 * rows never go up again as the same set; the resume polls it), the sets not started go now, and
 * every input row ends with exactly one report line and its own status.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { parse } from 'csv-parse/sync';
import { afterEach, describe, expect, it } from 'vitest';
import { ledgerFile } from '../../src/ledger/run-dirs.js';
import { startSandbox, type Sandbox } from '../../src/sandbox/index.js';
import { importsEnded } from '../helpers/imports-ended.js';
import { exited, spawnCli } from '../helpers/spawn-cli.js';
import { tmpTree } from '../helpers/tmp.js';

const REFUSED = 'shoe_size: Custom attribute "shoe_size" does not exist in the account.';

let sandbox: Sandbox | undefined;
afterEach(async () => {
  await sandbox?.close();
  sandbox = undefined;
});

/** The CLI in its own process, its stderr readable. */
const importer = (args: string[], env: NodeJS.ProcessEnv, cwd: string) => spawnCli(args, { cwd, env, stderr: 'pipe' });

/** The import ids the killed run's ledger holds: the chunks' and their re-uploads'. */
function recordedImports(stateDir: string): string[] {
  const runs = readdirSync(join(stateDir, 'runs'));
  expect(runs).toHaveLength(1);
  const db = new Database(ledgerFile(join(stateDir, 'runs', runs[0]!)), { readonly: true });
  try {
    const ids = (sql: string) => db.prepare(sql).pluck().all() as string[];
    return [
      ...ids('SELECT import_id FROM bulk_chunks WHERE import_id IS NOT NULL'),
      ...ids('SELECT import_id FROM bulk_sub_imports WHERE import_id IS NOT NULL ORDER BY sub'),
    ];
  } finally {
    db.close();
  }
}

describe('bulk import: kill -9 during a bisection, then resume', () => {
  it('polls every recorded import (chunk and re-uploads), uploads only the sets not started, reports every row once', async () => {
    // 400 contacts in the first chunk, 130 refused by the service alone: the import lists 50, so
    // the 350 rows left unknown go up again in 4 sets (about 20 failures each), one after the
    // other. A second chunk of 100, all accepted, goes after: in the resume, its new chunk file
    // must not take the place of the first chunk's, from which the sets left are cut.
    const lines = ['customer_id,email,tier,shoe_size'];
    const refused: string[] = [];
    for (let i = 0; i < 500; i++) {
      const bad = i < 400 && i % 3 === 1 && refused.length < 130;
      if (bad) refused.push(`C-${i}`);
      lines.push(`C-${i},c${i}@example.com,gold,${bad ? '42' : ''}`);
    }
    const dir = tmpTree({
      'contacts.csv': `${lines.join('\n')}\n`,
      'contacts.yaml':
        'resource: user\nsource: { file: contacts.csv }\nkey: customer_id\nfields:\n  custom_id: customer_id\n  email: email\n  tier: tier\n  shoe_size: shoe_size\n',
      'job.yaml': 'mappings: [contacts.yaml]\n',
    });
    // 200 rows/s: the chunk's import runs 2 s, each re-upload half a second; the client's first
    // poll comes 1 s after an upload, so the kill lands while it waits for the second re-upload.
    sandbox = await startSandbox({ port: 0, rate: 0, bulkRowsPerS: 200, fixtures: { userAttributes: ['tier'] } });
    const env = { ...process.env, ENGAGE_API_KEY: sandbox.apiKey, ENGAGE_BASE_URL: sandbox.url };
    const common = ['--report', 'report.csv', '--state-dir', 'state', '--rate', '1000', '--quiet'];
    const bulk = ['--bulk', 'always', '--bulk-chunk-rows', '400'];
    const uploads = () =>
      sandbox!.requests.filter((q) => q.method === 'POST' && q.path.endsWith('users/import/') && q.status === 200);

    const first = importer(['import', 'job.yaml', ...common, ...bulk], env, dir);
    const firstExit = exited(first);
    // Killed once the second re-upload (the third upload) is answered: the first chunk's import and
    // the first re-upload are finished and recorded, two sets and the second chunk are not uploaded yet.
    while (uploads().length < 3 && first.exitCode === null) await new Promise((r) => setTimeout(r, 5));
    first.kill('SIGKILL');
    expect(await firstExit).toBe(null);
    const killedAt = sandbox.requests.length;
    expect(uploads()).toHaveLength(3);

    const recorded = recordedImports(join(dir, 'state'));
    const before = uploads().map((q) => q.importId!);
    // The chunk's import and the first re-upload surely (they were polled); the second when its
    // answer was read before the kill.
    expect(recorded.slice(0, 2)).toEqual(before.slice(0, 2));
    expect(before).toEqual(expect.arrayContaining(recorded));

    const second = importer(['resume', ...common, ...bulk], env, dir);
    let stderr = '';
    second.stderr?.on('data', (c: Buffer) => (stderr += c.toString()));
    expect(await exited(second), stderr).toBe(1); // some rows failed, as they should
    // Let the imports still running at the service end, so their rows are all in the log.
    await importsEnded(sandbox!);

    const log = sandbox.requests;
    const rowsOf = (importId: string) =>
      log
        .filter((q) => q.method === 'IMPORT' && q.importId === importId)
        .map((q) => (q.body as { custom_id: string }).custom_id)
        .sort()
        .join(',');
    const after = log.slice(killedAt);
    const uploadedAfter = after.filter((q) => q.method === 'POST' && q.path.endsWith('users/import/'));
    // Every recorded import was polled by the resume, and no set of rows went up again.
    for (const id of recorded) {
      expect(after.some((q) => q.method === 'GET' && q.path.includes(`import_id=${id}`))).toBe(true);
      for (const up of uploadedAfter) expect(rowsOf(up.importId!)).not.toBe(rowsOf(id));
    }
    // The two sets never uploaded and the second chunk went now, plus the second re-upload when its id was lost.
    expect(uploadedAfter).toHaveLength(3 + (3 - recorded.length));
    expect(uploadedAfter.every((q) => q.status === 200)).toBe(true);

    const report = parse(readFileSync(join(dir, 'report.csv')), { columns: true }) as Record<string, string>[];
    expect(report.map((l) => Number(l.line))).toEqual(Array.from({ length: 500 }, (_, i) => i + 2));
    const failed = report.filter((l) => l.status === 'failed');
    expect(failed.map((l) => l.key)).toEqual(refused);
    for (const l of failed)
      expect(l.message).toMatch(new RegExp(`^bulk import [0-9a-f-]{36}: ${escapeRegExp(REFUSED)}$`));
    expect(report.filter((l) => l.status === 'ok')).toHaveLength(370);
    expect(sandbox.state.users()).toHaveLength(370);
    // No file of row data is left behind: the chunks' nor the re-upload the kill interrupted.
    const [run] = readdirSync(join(dir, 'state', 'runs'));
    expect(readdirSync(join(dir, 'state', 'runs', run!, 'bulk'))).toEqual([]);
  }, 90_000);
});

const escapeRegExp = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
