/**
 * The preview opens the job's state for reading before it looks for runs the state is behind
 * on: when that look fails (a run folder whose ledger is not a database), the state is closed
 * again, not left open for the rest of the process.
 */
import { mkdirSync, readdirSync, readlinkSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openPreview } from '../../src/cli/incremental-preview.js';
import { loadJob } from '../../src/config/load-job.js';
import { syncStateFile } from '../../src/sync/state-file.js';
import { SyncState } from '../../src/sync/sync-state.js';
import { tmpTree } from '../helpers/tmp.js';

let dirs: string[] = [];
afterEach(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
  dirs = [];
});

/** The files this process holds open under `dir`. */
const openUnder = (dir: string) =>
  readdirSync('/proc/self/fd').flatMap((fd) => {
    try {
      const target = readlinkSync(join('/proc/self/fd', fd));
      return target.startsWith(dir) ? [target] : [];
    } catch {
      return [];
    }
  });

describe.runIf(process.platform === 'linux')('openPreview', () => {
  it('closes the state when reading the runs it may be behind on fails', async () => {
    const dir = tmpTree({
      'job.yaml': 'mappings: [contacts.yaml]\n',
      'contacts.yaml': 'resource: user\nsource: { file: contacts.csv }\nkey: id\nfields: { custom_id: id }\n',
      'contacts.csv': 'id\nC-1\n',
    });
    dirs.push(dir);
    const job = await loadJob(join(dir, 'job.yaml'));
    const stateDir = join(dir, '.engage-import');
    const state = SyncState.open(syncStateFile(stateDir, job.file), job.file, { mode: 'write' })!;
    state.checkTarget({ baseUrl: 'https://a.example.com/api/public/', keyFingerprint: 'fp' }, true);
    state.close();
    const run = join(stateDir, 'runs', '20261124T020000Z-0001');
    mkdirSync(run, { recursive: true });
    writeFileSync(join(run, 'ledger.sqlite'), 'not a database');

    expect(() => openPreview(job, { incremental: true, 'deal-update-method': 'PATCH' }, dir)).toThrow();
    expect(openUnder(stateDir)).toEqual([]);
  });
});
