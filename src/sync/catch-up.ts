import { join, resolve } from 'node:path';
import { listRunIds, readRun, runsDir } from '../ledger/run-dirs.js';
import type { LedgerSyncFeed } from './ledger-feed.js';
import type { SyncState } from './sync-state.js';
import { targetDifference } from './state-target.js';

/** A run ledger opened for reading its sync outbox; closed once applied. */
export type OpenFeed = (runDir: string) => LedgerSyncFeed & { close(): void };

/**
 * Applies every outcome that the job's runs recorded and the state has not applied yet, oldest
 * run first: what a kill -9 between a ledger commit and the state's own commit left behind.
 * Called under the state directory's lock at the start of every run (and resume) before any row
 * is classified, and by the preview when the lock is free. Runs already applied to their end
 * are skipped without opening their ledger. Returns the number of outcomes applied.
 */
export function catchUp(
  state: SyncState,
  stateDir: string,
  openFeed: OpenFeed,
  options: { cwd?: string } = {},
): number {
  let applied = 0;
  for (const runDir of runsToApply(state, stateDir, options)) {
    const feed = openFeed(runDir);
    try {
      applied += state.apply(feed);
    } finally {
      feed.close();
    }
  }
  return applied;
}

/**
 * The folders of the job's runs that `catchUp` would open: not applied to their end, and sent to
 * the state's target (a run against another account is not this state's business). Reads only
 * their identities, so a preview can tell without the lock whether the state is behind.
 */
export function runsToApply(state: SyncState, stateDir: string, options: { cwd?: string } = {}): string[] {
  const job = resolve(state.job);
  const target = state.target();
  const out: string[] = [];
  for (const id of listRunIds(stateDir)) {
    if (state.isComplete(id)) continue;
    const runDir = join(runsDir(stateDir), id);
    const run = readRun(runDir, options);
    if (run === undefined || resolve(run.identity.job.path) !== job) continue;
    if (target !== undefined && run.identity.target !== undefined && targetDifference(target, run.identity.target))
      continue;
    out.push(runDir);
  }
  return out;
}
