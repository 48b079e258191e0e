import { rmSync } from 'node:fs';
import { join } from 'node:path';
import type { LedgerSyncFeed, SyncDelta } from '../../src/sync/ledger-feed.js';
import { SyncState } from '../../src/sync/sync-state.js';
import { tmpTree } from '../helpers/tmp.js';

/** A run ledger's outbox as the state reads it: the deltas given, in seq order, read in pages. */
export function fakeFeed(
  runId: string,
  deltas: readonly Omit<SyncDelta, 'seq' | 'at'>[],
  options: { finished?: boolean; fingerprints?: LedgerSyncFeed['fingerprints']; at?: string } = {},
) {
  const all: SyncDelta[] = deltas.map((d, i) => ({ ...d, seq: i + 1, at: options.at ?? '2026-11-23T02:00:00.000Z' }));
  const reads: { after: number; limit: number }[] = [];
  const feed: LedgerSyncFeed & { reads: typeof reads; close(): void } = {
    runId,
    finished: options.finished ?? true,
    fingerprints: options.fingerprints ?? {},
    deltasAfter(after, limit) {
      reads.push({ after, limit });
      return all.filter((d) => d.seq > after).slice(0, limit);
    },
    reads,
    close: () => undefined,
  };
  return feed;
}

/** A state file in a fresh temporary folder, opened for writing; `cleanup` closes and deletes it. */
export function tempState(job = '/jobs/nightly.yaml') {
  const dir = tmpTree();
  const file = join(dir, 'sync', 'nightly.sqlite');
  const state = SyncState.open(file, job, { mode: 'write', cwd: dir })!;
  return {
    dir,
    file,
    state,
    cleanup: () => {
      try {
        state.close();
      } catch {
        // already closed by the test
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

export const hex = (c: string) => c.repeat(64).slice(0, 64);
