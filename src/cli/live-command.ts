import { resolve } from 'node:path';
import { loadJob } from '../config/load-job.js';
import { DEFAULTS } from '../defaults.js';
import { ConfigError, LedgerError } from '../errors.js';
import { createRun, findUnfinishedRun } from '../ledger/index.js';
import { displayPath } from '../text/display-path.js';
import { resumeCommand } from '../pipeline/resume-command.js';
import { inDoubtModeOf, resolveBaseUrl, type InDoubtMode } from '../transport/index.js';
import type { CliIo } from './command.js';
import { commandApiKey, readBaseUrl } from './credentials.js';
import { EXIT } from './exit-codes.js';
import type { LiveArgs } from './live-options.js';
import { liveRunHooks, type LiveRunHooks } from './live-run-hooks.js';
import { catchUpBeforeRefusal, checkSyncState, type RunSyncMode } from './live-sync.js';
import { refuseChangedEventMappings } from './changed-event-mappings.js';
import { runIdentity } from './run-identity.js';
import { InterruptedWhileWaiting, takeStateLock, type TakenLock } from './take-state-lock.js';
import { checkRotatedKey } from './check-rotated-key.js';
import { driveRun } from './drive-run.js';
import { payloadOptionsOf, type LiveRunArgs, type LiveSetup } from './live-setup.js';
import { resumeRun } from './resume-run.js';
import { runStateDir } from './run-state-dir.js';

/** How a live run starts: a new run of `job`, or the resume of a run directory. */
export type LiveStart =
  | { readonly kind: 'new'; readonly job: string }
  | { readonly kind: 'resume'; readonly job?: string | undefined; readonly runDir?: string | undefined };

/** `import` (live) and `resume`: connection, ledger, transport and progress around the pipeline. */
export async function runLive(start: LiveStart, args: LiveRunArgs, io: CliIo): Promise<number> {
  // Credentials and address first: a usage error must come before any file is touched. A key
  // that cannot be read still ends the run as refused, with its log end and alert: a cron job
  // whose key file went missing hears of a night that sent nothing.
  let apiKey = '';
  let keyError: unknown;
  try {
    apiKey = commandApiKey(io, args['api-key-file']);
  } catch (error) {
    keyError = error;
  }
  // Log format, --max-failed and the notification (src/cli/live-run-hooks.ts).
  const hooks = liveRunHooks(args, io, apiKey);
  // Set when an error ends a run whose ledger holds rows: it had begun sending, so it was not refused.
  const ended = { began: false };
  // The state directory's lock, from the moment it is taken until a ledger holds it.
  const taken: TakenLock = {};
  try {
    if (keyError !== undefined) throw keyError;
    return await runLiveWith(start, args, io, apiKey, hooks, ended, taken);
  } catch (error) {
    // Let go of the state directory before the alert, which may wait up to 10 s for its webhook.
    taken.lock?.release();
    if (error instanceof InterruptedWhileWaiting) {
      io.stderr.write(
        `engage-import: interrupted (${error.signal}) while waiting for ${error.waitingFor}; nothing was sent\n`,
      );
      return error.signal === 'SIGTERM' ? EXIT.SIGTERM : EXIT.SIGINT;
    }
    await hooks.refused(error, start.job, ended.began);
    throw error;
  } finally {
    taken.lock?.release();
  }
}

async function runLiveWith(
  start: LiveStart,
  args: LiveRunArgs,
  io: CliIo,
  apiKey: string,
  hooks: LiveRunHooks,
  ended: { began: boolean },
  taken: TakenLock,
): Promise<number> {
  // A resume may leave the base URL out (its run's is used); a new run needs one.
  const givenBaseUrl = args['base-url'] ?? io.env['ENGAGE_BASE_URL'];
  const baseUrl =
    start.kind === 'resume' && !givenBaseUrl
      ? undefined
      : resolveBaseUrl(givenBaseUrl || readBaseUrl(io.env, undefined));
  const inDoubt = inDoubtOf(args, io);
  const { stateDir, explicit, inRuns } = runStateDir(
    start.job,
    start.kind === 'resume' ? start.runDir : undefined,
    args['state-dir'],
    io.cwd,
  );
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
  if (args.incremental === true && args['full-refresh'] === true)
    throw new ConfigError('USAGE', '--incremental and --full-refresh exclude each other: choose one');
  const setup: LiveSetup = {
    io,
    args,
    apiKey,
    hooks,
    ended,
    taken,
    baseUrl,
    inDoubt,
    stateDir,
    explicit,
    inRuns,
    resumeOf,
  };
  return start.kind === 'resume' ? await resumeRun(setup, start.job) : await startRun(setup, start.job);
}

/**
 * `import` (live): refused while the job has an unfinished run or a sync state it could not
 * trust, else a new run, driven to its end.
 */
async function startRun(setup: LiveSetup, jobArg: string): Promise<number> {
  const { io, args, taken, stateDir } = setup;
  const job = await loadJob(resolve(io.cwd, jobArg), {
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
      `an unfinished run of this job is in ${displayPath(unfinished.runDir, io.cwd)}: continue it with '${setup.resumeOf(unfinished.runDir)}' (rows it sent are not sent again; rows in flight when it stopped are reported unknown), or move that folder away to start over (a plain run sends every row again; an incremental one skips the rows it had accepted, but sends again those in flight when it stopped, which may record an event twice)`,
    );
  }
  const mode: RunSyncMode =
    args['full-refresh'] === true
      ? 'full-refresh'
      : (args.incremental ?? job.sync === 'incremental')
        ? 'incremental'
        : undefined;
  const baseUrl = setup.baseUrl!;
  if (args['key-rotated'] === true) await checkRotatedKey({ baseUrl, apiKey: setup.apiKey }, args, io);
  const identity = await runIdentity(
    job,
    { ...payloadOptionsOf(args), ...(mode !== undefined && { sync: mode }) },
    { baseUrl, apiKey: setup.apiKey },
  );
  // A sync state this run could not use is refused before the run exists: nothing is sent.
  checkSyncState(job, stateDir, identity.target, io.cwd, args['key-rotated']);
  if (mode !== undefined && args['accept-mapping-change'] !== true)
    await refuseChangedEventMappings(job, stateDir, mode, {
      dealUpdateMethod: args['deal-update-method'],
      limit: args.limit,
      cwd: io.cwd,
      locked: true,
    });
  const ledger = await createRun(stateDir, identity, undefined, { cwd: io.cwd, heldLock: taken.lock });
  taken.lock = undefined;
  const { apiKey, inDoubt, hooks, ended, resumeOf } = setup;
  return await driveRun(
    { io, args, stateDir, baseUrl, apiKey, inDoubt, hooks, ended, resumeOf, reopened: false },
    job,
    ledger,
    mode,
    true,
  );
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
