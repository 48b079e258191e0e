import type { LoadedJob } from '../config/load-job.js';
import { findUnfinishedRun, lockIsHeld } from '../ledger/index.js';
import { displayPath } from '../pipeline/display-path.js';

/**
 * What a preview must say when the job has a run that has not finished: the live `import` it
 * previews would be refused until that run is resumed (a run killed mid-way), or that run is
 * still sending (it holds the state directory's lock), so the preview compares with what it has
 * accepted so far. Undefined when every run of the job has finished.
 */
export function unfinishedRunNote(job: LoadedJob, stateDir: string, cwd: string): string | undefined {
  const run = findUnfinishedRun(stateDir, { cwd, jobPath: job.file });
  if (run === undefined) return undefined;
  const where = displayPath(run.runDir, cwd);
  if (lockIsHeld(stateDir))
    return `a run of this job is in progress (${where}): this preview compares with what it had accepted when the preview began`;
  return `an unfinished run of this job is in ${where}: the next import of this job is refused until it is resumed ('engage-import resume ${where}'), which sends that run's own rows, not this plan`;
}
