import type { LoadedJob } from '../config/load-job.js';
import { findUnfinishedRun, liveLockHolder } from '../ledger/index.js';
import { displayPath } from '../text/display-path.js';

/**
 * What a preview must say when the job has a run that has not finished: the live `import` it
 * previews would be refused until that run is resumed (a run killed mid-way). When another
 * process holds the state directory, it may be that run still sending (the preview then compares
 * with what it has accepted so far), or anything else using the directory (another job, a state
 * command): the lock does not say which, so the note gives both readings. Undefined when every
 * run of the job has finished.
 */
export function unfinishedRunNote(job: LoadedJob, stateDir: string, cwd: string): string | undefined {
  const run = findUnfinishedRun(stateDir, { cwd, jobPath: job.file });
  if (run === undefined) return undefined;
  const where = displayPath(run.runDir, cwd);
  const resume = `the next import of this job is refused until it is resumed ('engage-import resume ${where}'), which sends that run's own rows, not this plan`;
  const holder = liveLockHolder(stateDir);
  if (holder === undefined) return `an unfinished run of this job is in ${where}: ${resume}`;
  const who =
    holder === 'unreadable'
      ? 'another process'
      : `another engage-import process (pid ${holder.pid} on ${holder.hostname})`;
  return `an unfinished run of this job is in ${where}, and ${who} is using the state directory: if that process is this run, still sending, this preview compares with what it had accepted when the preview began; if not, ${resume}`;
}
