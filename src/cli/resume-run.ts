import { resolve } from 'node:path';
import { loadJob } from '../config/load-job.js';
import { DEFAULTS } from '../defaults.js';
import { LedgerError } from '../errors.js';
import { findLatestRun, findUnfinishedRun, openForResume, readRun, type OpenLedger } from '../ledger/index.js';
import { displayPath } from '../text/display-path.js';
import { rowsInDoubt } from '../transport/in-doubt.js';
import { resolveBaseUrl } from '../transport/index.js';
import { readBaseUrl } from './credentials.js';
import { doubtsOfOtherRuns } from './doubts-of-other-runs.js';
import { checkRotatedKey } from './check-rotated-key.js';
import { driveRun } from './drive-run.js';
import { EXIT } from './exit-codes.js';
import { payloadOptionsOf, type LiveSetup } from './live-setup.js';
import { catchUpBeforeRefusal, checkSyncState, type RunSyncMode } from './live-sync.js';
import { withRecordedPayloadOptions } from './resume-args.js';
import { refuseOtherStateDir } from './resume-state-dir.js';
import { payloadOptionsToCompare, runIdentity } from './run-identity.js';
import { takeStateLock } from './take-state-lock.js';

/**
 * `resume` (and `import --resume`): finds the run (named, the job's unfinished one, or the newest
 * finished one to say so), takes the payload options it started with where the command line
 * gives none, refuses what changed since, and drives it on. A finished run is reopened only by
 * `--resend-unknown`, and only when it has rows in doubt.
 */
export async function resumeRun(setup: LiveSetup, jobArg: string | undefined): Promise<number> {
  const { io, taken, stateDir, explicit } = setup;
  const jobFile = jobArg !== undefined ? resolve(io.cwd, jobArg) : undefined;
  if (setup.inRuns) refuseOtherStateDir(explicit!, stateDir, io.cwd);
  // Before the run is read: the process holding the state directory may be that very run, or
  // another resume of it, about to finish it. Held from here: nothing may start in between.
  taken.lock = await takeStateLock(stateDir, io, {
    lockWaitSeconds: setup.args['lock-wait'],
    quiet: setup.args.quiet,
  });
  const run =
    explicit !== undefined
      ? readRun(explicit, { cwd: io.cwd })
      : (findUnfinishedRun(stateDir, { cwd: io.cwd, ...(jobFile !== undefined ? { jobPath: jobFile } : {}) }) ??
        finishedRunOf(stateDir, jobFile, io.cwd));
  if (run === undefined) {
    const where = displayPath(explicit ?? stateDir, io.cwd);
    throw new LedgerError(
      'RESUME_REFUSED',
      jobFile !== undefined
        ? `no run of ${displayPath(jobFile, io.cwd)} to resume in ${where}`
        : `no run to resume in ${where}: a run keeps its ledger in ${DEFAULTS.stateDir} beside its job file (or in the --state-dir it was given): name that folder with --state-dir, or the job with engage-import import JOB --resume`,
    );
  }
  io.onRunFolder?.(setup.resumeOf(run.runDir));
  // A second resume of a finished run is a no-op; --resend-unknown reopens one that
  // still has rows in doubt.
  const finished = () => {
    const message = `the run in ${displayPath(run.runDir, io.cwd)} has finished already; nothing to resume`;
    io.stderr.write(`engage-import: ${message}.\n`);
    // A batch job reading stdout gets an answer too: nothing ran, and nothing is wrong.
    if (setup.args.json)
      io.stdout.write(`${JSON.stringify({ outcome: 'nothing_to_resume', exit_code: EXIT.OK, message }, null, 2)}\n`);
    if (setup.args['resend-unknown'] === true) {
      const others = doubtsOfOtherRuns(run.identity.job.path, stateDir, run.runDir, io.cwd);
      if (others !== undefined) io.stderr.write(`engage-import: ${others}\n`);
    }
    return EXIT.OK;
  };
  if (run.finished && !setup.args['resend-unknown']) return finished();
  // A resume may leave the base URL out: it goes on against its run's, as the command a stop
  // prints, `engage-import resume <run folder>`, has it.
  const baseUrl = setup.baseUrl ?? recordedBaseUrl(run.identity.target?.baseUrl, io.env);
  // A resume takes the payload options its run started with where the command line gives none;
  // one given with another value refuses and says what changed.
  const args = withRecordedPayloadOptions(setup.args, run.identity.options);
  const job = await loadJob(jobFile ?? run.identity.job.path, {
    cwd: io.cwd,
    ...(args.input !== undefined ? { input: args.input } : {}),
  });
  // A resume goes on as the run started (incremental, full refresh or neither), whatever the flags say now.
  const mode = syncModeOf(run.identity.options['sync']);
  const identity = await runIdentity(
    job,
    { ...payloadOptionsToCompare(payloadOptionsOf(args), run.identity), ...(mode !== undefined && { sync: mode }) },
    { baseUrl, apiKey: setup.apiKey },
  );
  if (args['key-rotated'] === true) await checkRotatedKey({ baseUrl, apiKey: setup.apiKey }, args, io);
  // The run's own identity is compared first (it says which of base URL and key differs).
  let ledger: OpenLedger;
  try {
    ledger = await openForResume(run.runDir, identity, {
      cwd: io.cwd,
      stateDir,
      heldLock: taken.lock,
      keyRotated: args['key-rotated'],
    });
    taken.lock = undefined;
  } catch (error) {
    // Refused (an input changed since): the operator may move the run away next.
    taken.lock?.release();
    if (error instanceof LedgerError && error.code === 'RESUME_REFUSED') catchUpBeforeRefusal(job, stateDir, io.cwd);
    throw error;
  }
  // Then, as for a new run, a state the resume could not trust is refused before anything is
  // sent or a finished run reopened, so the refusal leaves the run as it was.
  try {
    checkSyncState(job, stateDir, identity.target, io.cwd, args['key-rotated']);
  } catch (error) {
    await ledger.close();
    throw error;
  }
  if (run.finished && rowsInDoubt(ledger.counts()) === 0) {
    await ledger.close();
    return finished();
  }
  // Sending rows of a finished run again: if this is interrupted too, the run must be resumable.
  if (run.finished) await ledger.reopen();
  if (setup.baseUrl === undefined && !args.quiet)
    io.stderr.write(`engage-import: resuming against ${baseUrl.origin}, the run's base URL\n`);
  return await driveRun(
    {
      io,
      args,
      stateDir,
      baseUrl,
      apiKey: setup.apiKey,
      inDoubt: setup.inDoubt,
      hooks: setup.hooks,
      ended: setup.ended,
      resumeOf: setup.resumeOf,
      reopened: run.finished,
    },
    job,
    ledger,
    mode,
  );
}

/** `resume` with nothing unfinished: the newest run (of the job) says "finished already". */
function finishedRunOf(stateDir: string, jobFile: string | undefined, cwd: string) {
  const latest = findLatestRun(stateDir, { cwd });
  return latest !== undefined && (jobFile === undefined || latest.identity.job.path === jobFile) ? latest : undefined;
}

/** The sync mode a run recorded in its identity (absent in runs that kept no mode). */
function syncModeOf(value: string | number | boolean | null | undefined): RunSyncMode {
  return value === 'incremental' || value === 'full-refresh' ? value : undefined;
}

/**
 * The base URL a run recorded, checked as one given now would be (https, or http on loopback); a
 * run recorded without one (an older ledger) needs it given, as a new run does.
 */
function recordedBaseUrl(recorded: string | undefined, env: Readonly<Record<string, string | undefined>>): URL {
  return resolveBaseUrl(recorded ?? readBaseUrl(env, undefined));
}
