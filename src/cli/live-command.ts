import { resolve } from 'node:path';
import { loadJob } from '../config/load-job.js';
import { DEFAULTS } from '../defaults.js';
import { ConfigError, LedgerError } from '../errors.js';
import {
  createRun,
  findLatestRun,
  findUnfinishedRun,
  openForResume,
  readRun,
  type OpenLedger,
  type StateLock,
} from '../ledger/index.js';
import { displayPath } from '../text/display-path.js';
import { resumeCommand } from '../pipeline/resume-command.js';
import { rowsInDoubt } from '../transport/in-doubt.js';
import { inDoubtModeOf, resolveBaseUrl, type InDoubtMode } from '../transport/index.js';
import type { CliIo } from './command.js';
import type { RunArgs } from './common-options.js';
import { readApiKey, readBaseUrl } from './credentials.js';
import { EXIT } from './exit-codes.js';
import type { LiveArgs, SyncModeArgs } from './live-options.js';
import { liveRunHooks, type LiveRunHooks } from './live-run-hooks.js';
import { catchUpBeforeRefusal, checkSyncState, type RunSyncMode } from './live-sync.js';
import { refuseChangedEventMappings } from './changed-event-mappings.js';
import { refuseOtherStateDir } from './resume-state-dir.js';
import { doubtsOfOtherRuns } from './doubts-of-other-runs.js';
import { withRecordedPayloadOptions } from './resume-args.js';
import { payloadOptionsToCompare, runIdentity, type PayloadOptions } from './run-identity.js';
import { InterruptedWhileWaiting, takeStateLock } from './take-state-lock.js';
import { driveRun, type DriveContext } from './drive-run.js';
import { runStateDir } from './run-state-dir.js';

/** How a live run starts: a new run of `job`, or the resume of a run directory. */
export type LiveStart =
  | { readonly kind: 'new'; readonly job: string }
  | { readonly kind: 'resume'; readonly job?: string | undefined; readonly runDir?: string | undefined };

/** `import` (live) and `resume`: connection, ledger, transport and progress around the pipeline. */
export async function runLive(
  start: LiveStart,
  args: RunArgs & LiveArgs & Partial<SyncModeArgs>,
  io: CliIo,
): Promise<number> {
  // Credentials and address first: a usage error must come before any file is touched.
  const apiKey = readApiKey(io.env, args['api-key-file'], io.cwd);
  // Log format, --max-failed and the notification (src/cli/live-run-hooks.ts).
  const hooks = liveRunHooks(args, io, apiKey);
  // Set when an error ends a run whose ledger holds rows: it had begun sending, so it was not refused.
  const ended = { began: false };
  // The state directory's lock, from the moment it is taken until a ledger holds it.
  const taken: TakenLock = {};
  try {
    return await runLiveWith(start, args, io, apiKey, hooks, ended, taken);
  } catch (error) {
    // Let go of the state directory before the alert, which may wait up to 10 s for its webhook.
    taken.lock?.release();
    if (error instanceof InterruptedWhileWaiting) {
      io.stderr.write(
        `engage-import: interrupted (${error.signal}) while waiting for the state directory; nothing was sent\n`,
      );
      return error.signal === 'SIGTERM' ? EXIT.SIGTERM : EXIT.SIGINT;
    }
    await hooks.refused(error, start.job, ended.began);
    throw error;
  } finally {
    taken.lock?.release();
  }
}

/** The lock a command took before its run's ledger took it over (then undefined). */
interface TakenLock {
  lock?: StateLock | undefined;
}

async function runLiveWith(
  start: LiveStart,
  given: RunArgs & LiveArgs & Partial<SyncModeArgs>,
  io: CliIo,
  apiKey: string,
  hooks: LiveRunHooks,
  ended: { began: boolean },
  taken: TakenLock,
): Promise<number> {
  // A resume takes the payload options its run started with where the command line gives none.
  let args = given;
  // A resume may leave it out: it goes on against its run's (`recordedBaseUrl`), as the command a
  // stop prints it, `engage-import resume <run folder>`, has it.
  const givenBaseUrl = args['base-url'] ?? io.env['ENGAGE_BASE_URL'];
  let baseUrl: URL =
    start.kind === 'resume' && !givenBaseUrl
      ? PENDING_BASE_URL
      : resolveBaseUrl(givenBaseUrl || readBaseUrl(io.env, undefined));
  const inDoubt = inDoubtOf(args, io);
  // A finished run reopened to resend its rows in doubt (`resume --resend-unknown`).
  let reopened = false;
  const { stateDir, explicit, inRuns } = runStateDir(
    start.job,
    start.kind === 'resume' ? start.runDir : undefined,
    args['state-dir'],
    io.cwd,
  );
  /** The command that continues a run of this command, as its stops print it. */
  const keyFile = args['api-key-file'];
  const resumeOf = (runDir: string) =>
    resumeCommand(
      runDir,
      {
        report: args.report,
        rejects: args.rejects,
        apiKeyFile: keyFile === undefined ? undefined : resolve(io.cwd, keyFile),
      },
      io.cwd,
    );
  const target = {
    get baseUrl() {
      return baseUrl;
    },
    apiKey,
  };
  const payloadOptionsOf = (a: typeof args): PayloadOptions => ({
    input: a.input ?? null,
    limit: a.limit ?? null,
    'deal-update-method': a['deal-update-method'],
    bulk: a.bulk,
    'bulk-min-rows': a['bulk-min-rows'],
    'bulk-chunk-rows': a['bulk-chunk-rows'],
  });
  let payloadOptions = payloadOptionsOf(args);
  if (args.incremental === true && args['full-refresh'] === true)
    throw new ConfigError('USAGE', '--incremental and --full-refresh exclude each other: choose one');

  // A resume with other payload options than its run's refuses and says what changed, rather
  // than silently using the stored ones; options left out (or at their default) are the run's.
  let ledger: OpenLedger;
  if (start.kind === 'resume') {
    const jobFile = start.job !== undefined ? resolve(io.cwd, start.job) : undefined;
    if (inRuns) refuseOtherStateDir(explicit!, stateDir, io.cwd);
    // Before the run is read: the process holding the state directory may be that very run, or
    // another resume of it, about to finish it. Held from here: nothing may start in between.
    taken.lock = await takeStateLock(stateDir, io, { lockWaitSeconds: args['lock-wait'], quiet: args.quiet });
    const run =
      explicit !== undefined
        ? readRun(explicit, { cwd: io.cwd })
        : (findUnfinishedRun(stateDir, { cwd: io.cwd, ...(jobFile !== undefined ? { jobPath: jobFile } : {}) }) ??
          finishedRunOf(jobFile));
    if (run !== undefined) io.onRunFolder?.(resumeOf(run.runDir));
    if (run === undefined) {
      const where = displayPath(explicit ?? stateDir, io.cwd);
      throw new LedgerError(
        'RESUME_REFUSED',
        jobFile !== undefined
          ? `no run of ${displayPath(jobFile, io.cwd)} to resume in ${where}`
          : `no run to resume in ${where}`,
      );
    }
    // A second resume of a finished run is a no-op; --resend-unknown reopens one that
    // still has rows in doubt.
    const finished = () => {
      const message = `the run in ${displayPath(run.runDir, io.cwd)} has finished already; nothing to resume`;
      io.stderr.write(`engage-import: ${message}.\n`);
      // A batch job reading stdout gets an answer too: nothing ran, and nothing is wrong.
      if (args.json)
        io.stdout.write(`${JSON.stringify({ outcome: 'nothing_to_resume', exit_code: EXIT.OK, message }, null, 2)}\n`);
      if (args['resend-unknown'] === true) {
        const others = doubtsOfOtherRuns(run.identity.job.path, stateDir, run.runDir, io.cwd);
        if (others !== undefined) io.stderr.write(`engage-import: ${others}\n`);
      }
      return EXIT.OK;
    };
    if (run.finished && !args['resend-unknown']) return finished();
    const fromRun = baseUrl === PENDING_BASE_URL;
    if (fromRun) baseUrl = recordedBaseUrl(run.identity.target?.baseUrl, io.env);
    args = withRecordedPayloadOptions(args, run.identity.options);
    payloadOptions = payloadOptionsOf(args);
    const job = await loadJob(jobFile ?? run.identity.job.path, {
      cwd: io.cwd,
      ...(args.input !== undefined ? { input: args.input } : {}),
    });
    // A resume goes on as the run started (incremental, full refresh or neither), whatever the flags say now.
    const mode = syncModeOf(run.identity.options['sync']);
    const identity = await runIdentity(
      job,
      { ...payloadOptionsToCompare(payloadOptions, run.identity), ...(mode !== undefined && { sync: mode }) },
      target,
    );
    // The run's own identity is compared first (it says which of base URL and key differs).
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
    const counts = ledger.counts();
    if (run.finished && rowsInDoubt(counts) === 0) {
      await ledger.close();
      return finished();
    }
    // Sending rows of a finished run again: if this is interrupted too, the run must be resumable.
    if (run.finished) await ledger.reopen();
    reopened = run.finished;
    if (fromRun && !args.quiet)
      io.stderr.write(`engage-import: resuming against ${baseUrl.origin}, the run's base URL\n`);
    return await driveRun(driveContext(), job, ledger, mode);
  }
  const job = await loadJob(resolve(io.cwd, start.job), {
    cwd: io.cwd,
    ...(args.input !== undefined ? { input: args.input } : {}),
  });
  // Before looking for an unfinished run: a run that holds the lock is in progress, not unfinished.
  // Held from here until the run's ledger takes it: no run may start or stop unseen meanwhile.
  taken.lock = await takeStateLock(stateDir, io, { lockWaitSeconds: args['lock-wait'], quiet: args.quiet });
  const unfinished = findUnfinishedRun(stateDir, { cwd: io.cwd, jobPath: job.file });
  if (unfinished) {
    // Under the lock it holds: nothing else may apply or start meanwhile.
    catchUpBeforeRefusal(job, stateDir, io.cwd, { locked: true });
    taken.lock.release();
    throw new LedgerError(
      'RESUME_REFUSED',
      `an unfinished run of this job is in ${displayPath(unfinished.runDir, io.cwd)}: continue it with 'engage-import resume ${displayPath(unfinished.runDir, io.cwd)}' (rows it sent are not sent again; rows in flight when it stopped are reported unknown), or move that folder away to start over (a plain run sends every row again; an incremental one skips the rows it had accepted, but sends again those in flight when it stopped, which may record an event twice)`,
    );
  }
  const mode: RunSyncMode =
    args['full-refresh'] === true
      ? 'full-refresh'
      : (args.incremental ?? job.sync === 'incremental')
        ? 'incremental'
        : undefined;
  const identity = await runIdentity(job, { ...payloadOptions, ...(mode !== undefined && { sync: mode }) }, target);
  // A sync state this run could not use is refused before the run exists: nothing is sent.
  checkSyncState(job, stateDir, identity.target, io.cwd, args['key-rotated']);
  if (mode !== undefined && args['accept-mapping-change'] !== true)
    await refuseChangedEventMappings(job, stateDir, mode, {
      dealUpdateMethod: args['deal-update-method'],
      limit: args.limit,
      cwd: io.cwd,
      locked: true,
    });
  ledger = await createRun(stateDir, identity, undefined, { cwd: io.cwd, heldLock: taken.lock });
  taken.lock = undefined;
  return await driveRun(driveContext(), job, ledger, mode, true);

  /** What the run is driven with, read when it starts: a resume has its base URL and options by then. */
  function driveContext(): DriveContext {
    return { io, args, stateDir, baseUrl, apiKey, inDoubt, hooks, ended, resumeOf, reopened };
  }

  /** `resume` with nothing unfinished: the newest run (of the job) says "finished already". */
  function finishedRunOf(jobFile: string | undefined) {
    const latest = findLatestRun(stateDir, { cwd: io.cwd });
    return latest !== undefined && (jobFile === undefined || latest.identity.job.path === jobFile) ? latest : undefined;
  }
}

/** The sync mode a run recorded in its identity (absent in runs that kept no mode). */
function syncModeOf(value: string | number | boolean | null | undefined): RunSyncMode {
  return value === 'incremental' || value === 'full-refresh' ? value : undefined;
}

/** `--in-doubt`, or the deprecated `--unsafe-retries` with a note on stderr. */
function inDoubtOf(args: LiveArgs, io: CliIo): InDoubtMode {
  const old = args['unsafe-retries'];
  if (old === undefined) return args['in-doubt'] ?? DEFAULTS.inDoubt;
  const mode = inDoubtModeOf(old);
  io.stderr.write(
    `engage-import: --unsafe-retries is deprecated; use --in-doubt ${mode}${args['in-doubt'] !== undefined ? ' (--in-doubt given too: it wins)' : ''}\n`,
  );
  return args['in-doubt'] ?? mode;
}

/** Stands for a resume's base URL until its run is read (`recordedBaseUrl`). */
const PENDING_BASE_URL = new URL('http://base-url.invalid/');

/**
 * The base URL a run recorded, checked as one given now would be (https, or http on loopback); a
 * run recorded without one (an older ledger) needs it given, as a new run does.
 */
function recordedBaseUrl(recorded: string | undefined, env: Readonly<Record<string, string | undefined>>): URL {
  return resolveBaseUrl(recorded ?? readBaseUrl(env, undefined));
}
