import { copyFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { LedgerError } from '../../src/errors.js';
import { createRun, findLatestRun, readRun } from '../../src/ledger/index.js';
import { listRunIds, nextRunId, runStamp, stateDirOf } from '../../src/ledger/run-dirs.js';
import { tmpTree } from '../helpers/tmp.js';
import { project } from './_helpers.js';

const at = (iso: string) => new Date(iso);

describe('run ids', () => {
  it('are the UTC start time to the second and a 4-hex suffix', () => {
    expect(runStamp(at('2026-11-23T07:15:00.987Z'))).toBe('20261123T071500Z');
    expect(nextRunId([], at('2026-11-23T07:15:00Z'), () => 0.2427)).toBe('20261123T071500Z-1f10');
  });

  it.each([
    [
      'a later second: a fresh random suffix',
      ['20261123T071459Z-7fff'],
      '2026-11-23T07:15:00Z',
      '20261123T071500Z-1f10',
    ],
    [
      'the same second: the next suffix, so the newest sorts last',
      ['20261123T071500Z-7000'],
      '2026-11-23T07:15:00Z',
      '20261123T071500Z-7001',
    ],
    [
      'a clock set back: still after the newest',
      ['20261124T000000Z-0001'],
      '2026-11-23T07:15:00Z',
      '20261124T000000Z-0002',
    ],
    ['a full second: the next second', ['20261123T071559Z-ffff'], '2026-11-23T07:15:59Z', '20261123T071600Z-0000'],
    [
      'folders that are not runs do not count',
      ['notes', '.20261124T000000Z-0001.creating'],
      '2026-11-23T07:15:00Z',
      '20261123T071500Z-1f10',
    ],
  ])('sort after every existing run: %s', (_name, existing, now, expected) => {
    expect(nextRunId(existing, at(now), () => 0.2427)).toBe(expected);
  });

  it('belong to the state directory two levels up', () => {
    expect(stateDirOf('/w/.engage-import/runs/20261123T071500Z-3f9a')).toBe('/w/.engage-import');
  });
});

describe('findLatestRun / readRun', () => {
  it('is undefined for a state directory without runs', () => {
    expect(findLatestRun(join(tmpTree(), 'nothing-here'))).toBeUndefined();
    expect(readRun(tmpTree())).toBeUndefined();
  });

  it('returns the newest run, whether it finished, and the identity it started with', async () => {
    const { dir, identity } = await project();
    const state = join(dir, '.engage-import');
    const first = await createRun(state, identity, () => at('2026-11-23T07:15:00Z'));
    await first.markFinished();
    await first.close();
    const second = await createRun(state, identity, () => at('2026-11-23T07:15:00Z'));
    await second.close();
    expect(second.runDir > first.runDir).toBe(true);
    expect(findLatestRun(state)).toEqual({ runDir: second.runDir, finished: false, identity });
    expect(readRun(first.runDir)).toEqual({ runDir: first.runDir, finished: true, identity });
  });

  it('ignores a folder left by a creation that crashed before its rename', async () => {
    const { dir, identity } = await project();
    const state = join(dir, 'state');
    const run = await createRun(state, identity, () => at('2026-11-23T07:15:00Z'));
    await run.close();
    // A staging folder holding a complete ledger, as one left just before its rename would.
    const staging = join(state, 'runs', '.20261123T080000Z-0001.creating');
    mkdirSync(staging);
    copyFileSync(join(run.runDir, 'ledger.sqlite'), join(staging, 'ledger.sqlite'));
    expect(listRunIds(state)).toEqual([basename(run.runDir)]);
    expect(findLatestRun(state)?.runDir).toBe(run.runDir);
  });

  it('refuses a newest run whose ledger is not a ledger, saying what to do', () => {
    const state = tmpTree();
    mkdirSync(join(state, 'runs', '20261123T071500Z-3f9a'), { recursive: true });
    writeFileSync(
      join(state, 'runs', '20261123T071500Z-3f9a', 'ledger.sqlite'),
      'not a database, just text that is long enough to be read'.repeat(100),
    );
    let error: unknown;
    try {
      findLatestRun(state, { cwd: state });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(LedgerError);
    expect((error as LedgerError).message).toBe(
      'the run ledger runs/20261123T071500Z-3f9a/ledger.sqlite is damaged (file is not a database) and cannot tell which rows were sent; ' +
        'move the run folder runs/20261123T071500Z-3f9a away to start a new run (rows that run sent will be sent again: check the account for them first)',
    );
  });
});
