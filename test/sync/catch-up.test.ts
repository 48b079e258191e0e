import { rmSync } from 'node:fs';
import { basename, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createRun } from '../../src/ledger/index.js';
import { catchUp } from '../../src/sync/catch-up.js';
import { syncStateFile } from '../../src/sync/state-file.js';
import { SyncState } from '../../src/sync/sync-state.js';
import { project } from '../ledger/_helpers.js';
import { fakeFeed, hex } from './_feed.js';

let dirs: string[] = [];
afterEach(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
  dirs = [];
});

describe('catchUp', () => {
  it("applies what the job's runs recorded and the state has not, oldest run first, and skips finished runs applied to their end", async () => {
    const { dir, identity } = await project();
    dirs.push(dir);
    const stateDir = join(dir, 'state');
    const runs: string[] = [];
    for (const [at, job] of [
      ['2026-11-21T02:00:00Z', identity.job.path],
      ['2026-11-22T02:00:00Z', join(dir, 'other-job.yaml')],
      ['2026-11-23T02:00:00Z', identity.job.path],
    ] as const) {
      const ledger = await createRun(
        stateDir,
        { ...identity, job: { ...identity.job, path: job } },
        () => new Date(at),
      );
      runs.push(basename(ledger.runDir));
      await ledger.close();
    }
    // Run 1 set C-1 to hash 1, run 3 (newer) to hash 3: applied in order, the state ends at 3.
    const outboxes: Record<string, ReturnType<typeof fakeFeed>> = {
      [runs[0]!]: fakeFeed(runs[0]!, [{ resource: 'user', kind: 'entity', key: 'custom_id=C-1', hash: hex('1') }]),
      [runs[1]!]: fakeFeed(runs[1]!, [{ resource: 'user', kind: 'entity', key: 'custom_id=C-9', hash: hex('9') }]),
      [runs[2]!]: fakeFeed(runs[2]!, [{ resource: 'user', kind: 'entity', key: 'custom_id=C-1', hash: hex('3') }], {
        finished: false,
      }),
    };
    const opened: string[] = [];
    const openFeed = (runDir: string) => {
      opened.push(basename(runDir));
      return outboxes[basename(runDir)]!;
    };
    const state = SyncState.open(syncStateFile(stateDir, identity.job.path), identity.job.path, { mode: 'write' })!;
    try {
      expect(catchUp(state, stateDir, openFeed)).toBe(2);
      expect(opened).toEqual([runs[0], runs[2]]);
      expect(state.lookup([{ resource: 'user', kind: 'entity', key: 'custom_id=C-1', hash: '' }])[0]?.hash).toBe(
        hex('3'),
      );
      expect(state.lookup([{ resource: 'user', kind: 'entity', key: 'custom_id=C-9', hash: '' }])[0]).toBeUndefined();
      // Again: run 1 finished and is applied to its end, so only the unfinished run 3 is read.
      opened.length = 0;
      expect(catchUp(state, stateDir, openFeed)).toBe(0);
      expect(opened).toEqual([runs[2]]);
    } finally {
      state.close();
    }
  });
});
