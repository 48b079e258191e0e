import { basename, join } from 'node:path';
import { RUNS_FOLDER } from '../ledger/index.js';
import { displayPath } from '../text/display-path.js';
import { syncStateFile, SyncState } from '../sync/index.js';

/**
 * `resume --resend-unknown` of a run with no rows in doubt of its own, whose report may still show
 * `unknown` rows: events an earlier run left in doubt, which every later run reports and leaves
 * alone. Names the runs that hold them and the command that settles each, or undefined.
 */
export function doubtsOfOtherRuns(jobPath: string, stateDir: string, runDir: string, cwd: string): string | undefined {
  let state: SyncState | undefined;
  try {
    state = SyncState.open(syncStateFile(stateDir, jobPath), jobPath, { cwd, mode: 'read', check: false });
  } catch {
    return undefined;
  }
  if (state === undefined) return undefined;
  try {
    const runs = state.doubtRuns().filter((r) => r.runId !== basename(runDir));
    if (runs.length === 0) return undefined;
    const commands = runs.map(
      (r) =>
        `'engage-import resume --resend-unknown ${displayPath(join(stateDir, RUNS_FOLDER, r.runId), cwd)}' (${r.count} event${r.count === 1 ? '' : 's'})`,
    );
    return `events in doubt since earlier runs are reported unknown by every later run until their own run resends them: ${commands.join(', ')}; when such a run's input has changed since, its unknown rows' messages in the report give the 'state forget' command instead`;
  } finally {
    state.close();
  }
}
