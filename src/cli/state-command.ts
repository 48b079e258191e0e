import { existsSync, lstatSync, rmSync, type Stats } from 'node:fs';
import { open, type FileHandle } from 'node:fs/promises';
import { basename, resolve } from 'node:path';
import { readableStateDir } from './output-args.js';
import type { Argv } from 'yargs';
import { RESOURCES } from '../config/mapping-schema.js';
import { DEFAULTS } from '../defaults.js';
import { ConfigError, LedgerError, SyncError } from '../errors.js';
import { acquireLock } from '../ledger/lock.js';
import { displayPath } from '../text/display-path.js';
import { isInFolder } from '../pipeline/output-paths.js';
import { findUnfinishedRun, openSyncFeed } from '../ledger/index.js';
import {
  catchUp,
  exportedJob,
  exportState,
  importState,
  listSyncStateFiles,
  sameFile,
  syncStateFile,
  SyncState,
  stateDirBeside,
} from '../sync/index.js';
import { defineCommand, type CliIo, type OptionsOf } from './command.js';
import { EXIT } from './exit-codes.js';

const ACTIONS = ['show', 'forget', 'export', 'import'] as const;

function stateOptions(y: Argv) {
  return y
    .positional('action', {
      choices: ACTIONS,
      demandOption: true,
      describe:
        'show: counts per resource, last run, size; forget: send rows again; export/import: NDJSON, e.g. to keep the state in a bucket',
    })
    .positional('file', { type: 'string', describe: 'export: the NDJSON file to write; import: the one to read' })
    .option('job', {
      type: 'string',
      describe:
        'The job whose state it is (default: the only state in --state-dir; import: the job named in the file, when it is at that path here)',
    })
    .option('state-dir', {
      type: 'string',
      describe: `Where run ledgers and sync states are kept (default: ${DEFAULTS.stateDir} beside the job file, as runs keep it; without --job, in the current folder)`,
    })
    .option('resource', { choices: RESOURCES, describe: 'forget: the resource to forget' })
    .option('key', {
      type: 'string',
      describe:
        "forget: only this key (a custom_id or an id, as custom_id=K or id=K when both are held; a deal create's custom_id; an event identity from the export)",
    })
    .option('json', { type: 'boolean', default: false, describe: 'show: print JSON on stdout' })
    .example('$0 state show', 'What the nightly job remembers')
    .example('$0 state forget --resource user --key C-1001', 'Send contact C-1001 again on the next incremental run')
    .example(
      '$0 state export --job nightly.yaml state.ndjson',
      'Save the state (e.g. to copy it to a bucket after the run)',
    )
    .example('$0 state import --job nightly.yaml state.ndjson', 'Restore it in a fresh container before the run');
}

type StateArgs = OptionsOf<typeof stateOptions>;

/**
 * `engage-import state show|forget|export|import`: what an incremental job remembers of the rows
 * the API accepted. `forget` and `import` change it, and `export` first catches it up with the
 * runs' ledgers, so they take the state directory's lock (never while a run is going); `show`
 * reads a consistent snapshot without it.
 */
export const stateCommand = defineCommand({
  command: 'state <action> [file]',
  describe: 'Show, forget, export or import the sync state of an incremental job',
  builder: stateOptions,
  run: runState,
});

async function runState(args: StateArgs, io: CliIo): Promise<number> {
  const show = (p: string) => displayPath(p, io.cwd);
  // Where runs keep it: beside the job file, whatever the current folder.
  const stateDirOf = (job: string | undefined) =>
    args['state-dir'] !== undefined
      ? readableStateDir(io.cwd, args['state-dir'])
      : job !== undefined
        ? stateDirBeside(job)
        : resolve(io.cwd, DEFAULTS.stateDir);
  if ((args.action === 'export' || args.action === 'import') && args.file === undefined) {
    throw new ConfigError(
      'USAGE',
      `state ${args.action} needs the NDJSON file: engage-import state ${args.action} FILE`,
    );
  }
  if (args.action === 'forget' && args.resource === undefined) {
    throw new ConfigError(
      'USAGE',
      'state forget needs --resource (and optionally --key): engage-import state forget --resource user --key C-1001',
    );
  }
  if (args.action !== 'forget' && (args.resource !== undefined || args.key !== undefined)) {
    throw new ConfigError('USAGE', '--resource and --key apply to state forget only');
  }

  if (args.action === 'import') {
    const file = resolve(io.cwd, args.file!);
    const job = restoredJob(
      args.job === undefined ? undefined : resolve(io.cwd, args.job),
      await jobNamedIn(file, show(file)),
      show,
    );
    const stateDir = stateDirOf(job);
    const lock = acquireLock(stateDir, { cwd: io.cwd });
    const stateFile = syncStateFile(stateDir, job);
    const existed = existsSync(stateFile);
    try {
      const state = SyncState.open(stateFile, job, { cwd: io.cwd, mode: 'write', check: false })!;
      try {
        const rows = await importState(state, file, io.cwd);
        io.stderr.write(
          `Imported ${rows.toLocaleString('en-US')} rows into the sync state of ${show(job)} (${show(state.place.file)}).\n`,
        );
      } finally {
        state.close();
      }
    } catch (error) {
      // "The sync state was not changed": a state the refused import created is not left behind.
      if (!existed) for (const f of [stateFile, `${stateFile}-wal`, `${stateFile}-shm`]) rmSync(f, { force: true });
      throw error;
    } finally {
      lock.release();
    }
    return EXIT.OK;
  }

  const namedJob = args.job === undefined ? undefined : resolve(io.cwd, args.job);
  const stateDir = stateDirOf(namedJob);
  const stateFile = findStateFile(stateDir, namedJob, show);
  if (args.action === 'forget') {
    const lock = acquireLock(stateDir, { cwd: io.cwd });
    try {
      const state = openExisting(stateFile, io, 'write');
      try {
        // What runs committed and the state has not applied yet goes in first: applied after the
        // forget, it would bring the forgotten rows back.
        catchUpWithRuns(state, stateDir, io.cwd);
        const n = state.forget(args.resource!, args.key);
        const what = args.key === undefined ? `every ${args.resource} row` : `${args.resource} ${args.key}`;
        io.stderr.write(
          n === 0
            ? `The sync state holds nothing for ${what}; nothing changed.\n`
            : `Forgot ${what} (${n.toLocaleString('en-US')} row${n === 1 ? '' : 's'}): the next incremental run sends ${n === 1 ? 'it' : 'them'} again.\n`,
        );
      } finally {
        state.close();
      }
    } finally {
      lock.release();
    }
    return EXIT.OK;
  }

  if (args.action === 'export') {
    const target = resolve(io.cwd, args.file!);
    await checkExportTarget(target, stateDir, args.file!, show);
    // Under the lock, caught up and checked as a run's state is: the export is what the next
    // container's runs start from, so a row accepted and not yet in it would be sent again there.
    const lock = acquireLock(stateDir, { cwd: io.cwd });
    try {
      const state = openExisting(stateFile, io, 'write');
      try {
        refuseUnfinishedRun(state, stateDir, io.cwd);
        catchUpWithRuns(state, stateDir, io.cwd);
        const rows = await exportState(state, target);
        io.stderr.write(
          `Exported ${rows.toLocaleString('en-US')} rows of the sync state of ${show(state.job)} to ${args.file}.\n`,
        );
      } finally {
        state.close();
      }
    } finally {
      lock.release();
    }
    return EXIT.OK;
  }

  const state = openExisting(stateFile, io, 'read');
  try {
    const counts = state.counts();
    const last = state.lastRun();
    const summary = {
      job: state.job,
      file: show(stateFile),
      bytes: state.size(),
      resources: counts,
      lastRun: last ?? null,
    };
    if (args.json) io.stdout.write(`${JSON.stringify(summary, null, 2)}\n`);
    else io.stdout.write(formatShow(summary, show));
    return EXIT.OK;
  } finally {
    state.close();
  }
}

/**
 * An export while a run of the job is unfinished (killed, or stopped) would leave out the rows it
 * had in flight and, until it is resumed, some it had accepted: a fresh container restoring it
 * would send them again, and an event would be recorded twice.
 */
function refuseUnfinishedRun(state: SyncState, stateDir: string, cwd: string): void {
  const run = findUnfinishedRun(stateDir, { cwd, jobPath: state.job });
  if (run === undefined) return;
  const where = displayPath(run.runDir, cwd);
  throw new LedgerError(
    'RESUME_REFUSED',
    `state export: an unfinished run of this job is in ${where}; the rows it had in flight are not in the sync state, and a state restored from this export would send them again: resume it first ('engage-import resume ${where}'), then export; nothing was written`,
  );
}

function openExisting(file: string, io: CliIo, mode: 'read' | 'write'): SyncState {
  // `read` of a missing file is undefined; findStateFile has checked it exists.
  const state = SyncState.open(file, '', { cwd: io.cwd, mode, check: mode === 'write' });
  if (state === undefined) throw new SyncError('SYNC_STATE', `there is no sync state at ${displayPath(file, io.cwd)}`);
  return state;
}

/** The state of `job`, or the only state of the directory when no job is named. */
function findStateFile(stateDir: string, job: string | undefined, show: (p: string) => string): string {
  const all = listSyncStateFiles(stateDir);
  if (job !== undefined) {
    const file = syncStateFile(stateDir, job);
    if (!all.includes(file))
      throw new SyncError(
        'SYNC_STATE',
        `there is no sync state of ${show(job)} in ${show(stateDir)} (a run with --incremental, or any run, creates it)`,
      );
    return file;
  }
  if (all.length === 1) return all[0]!;
  if (all.length === 0)
    throw new SyncError(
      'SYNC_STATE',
      `there is no sync state in ${show(stateDir)} (a run with --incremental, or any run, creates it beside its job file: name the job with --job, or the folder with --state-dir)`,
    );
  throw new ConfigError(
    'USAGE',
    `${show(stateDir)} holds the sync states of ${all.length} jobs (${all.map(show).join(', ')}); name one with --job`,
  );
}

/**
 * The job an import restores the state of: the one named with --job, or the one the export names
 * when that file is here (the same machine). An export whose job has another file name is another
 * job's, refused; the same name at another path is the same job moved (a fresh container), unless
 * the exported job is here too: then it is that job reached by another path, or another job.
 */
function restoredJob(named: string | undefined, exported: string, show: (p: string) => string): string {
  if (named === undefined) {
    if (existsSync(exported)) return exported;
    throw new ConfigError(
      'USAGE',
      `the export is of the job ${exported}, which is not there on this machine; name the job to restore it for: engage-import state import FILE --job path/to/${basename(exported)}; the sync state was not changed`,
    );
  }
  if (!existsSync(named))
    throw new ConfigError(
      'USAGE',
      `there is no job file ${show(named)}: a state restored for it would sit where no run reads it; name the job file the state is for; the sync state was not changed`,
    );
  if (basename(named) !== basename(exported))
    throw new ConfigError(
      'USAGE',
      `the export is of the job ${exported}, not ${show(named)}: a state restored into another job would call its rows sent; the sync state was not changed`,
    );
  if (named === exported || !existsSync(exported)) return named;
  // The exported job's file is here too: this job by another path (a link), which is how the
  // operator carries its state over to go by that path from now on; or a copy, another job.
  if (sameFile(named, exported)) return named;
  throw new ConfigError(
    'USAGE',
    `the export is of the job ${exported}, which is on this machine too, and ${show(named)} is another job of the same name: a state restored into it would call its rows sent; restore it for ${exported}, or name the job file it belongs to; the sync state was not changed`,
  );
}

/** The job an export belongs to, from its first line. */
async function jobNamedIn(file: string, shown: string): Promise<string> {
  const job = exportedJob(await firstLineOf(file, shown));
  if (job !== undefined) return job;
  throw new SyncError(
    'SYNC_STATE',
    `${shown}:1: not an engage-import sync state export (no job named in its first line); the sync state was not changed`,
  );
}

/** An export's first line (its header) is short: a file whose first line is longer is not one. */
const HEADER_BYTES = 64 * 1024;

/** The first line of a file ('' when it is empty), read from its first `HEADER_BYTES` only. */
async function firstLineOf(file: string, shown: string): Promise<string> {
  let handle: FileHandle | undefined;
  try {
    handle = await open(file, 'r');
    const buffer = Buffer.alloc(HEADER_BYTES);
    const { bytesRead } = await handle.read(buffer, 0, HEADER_BYTES, 0);
    const text = buffer.subarray(0, bytesRead).toString('utf8');
    const end = text.indexOf('\n');
    return (end === -1 ? text : text.slice(0, end)).replace(/\r$/, '');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new SyncError(
      'SYNC_STATE',
      `cannot read ${shown}: ${code === 'ENOENT' ? 'no such file' : code === 'EISDIR' ? 'it is a folder' : (error as Error).message}`,
      { cause: error },
    );
  } finally {
    await handle?.close();
  }
}

/**
 * An export may replace only an earlier export (or an empty file): any other file there may be
 * the job, a mapping or an input CSV, which an export written over it would destroy.
 */
async function checkExportTarget(target: string, stateDir: string, given: string, show: (p: string) => string) {
  if (isInFolder(target, stateDir))
    throw new ConfigError(
      'USAGE',
      `state export: ${given} is inside the state directory ${show(stateDir)}, beside the state and the run ledgers it could overwrite: write the export somewhere else`,
    );
  // lstat: the export is written beside its target and renamed over it, which would replace a
  // link, a device or a pipe by a regular file.
  const stat = lstatOf(target);
  if (stat === undefined) return;
  if (stat.isDirectory())
    throw new ConfigError('USAGE', `state export: ${given} is a folder: name the file to write the export to`);
  if (!stat.isFile())
    throw new ConfigError(
      'USAGE',
      `state export: ${given} is not a regular file (a link, a device or a pipe): write the export to a new file, or over an earlier export`,
    );
  if (stat.size === 0) return;
  if (exportedJob(await firstLineOf(target, given)) === undefined)
    throw new ConfigError(
      'USAGE',
      `state export: ${given} exists and is not a sync state export (it may be the job, a mapping or an input file): write the export to a new file, or over an earlier export`,
    );
}

function lstatOf(path: string): Stats | undefined {
  try {
    return lstatSync(path);
  } catch {
    return undefined;
  }
}

const n = (v: number) => v.toLocaleString('en-US');

function formatShow(
  s: {
    job: string;
    file: string;
    bytes: number;
    resources: readonly { resource: string; kind: string; count: number; inDoubt?: number }[];
    lastRun: { runId: string; at: string } | null;
  },
  show: (p: string) => string,
): string {
  const lines = [`Sync state of ${show(s.job)}: ${s.file}, ${formatBytes(s.bytes)}`];
  if (s.resources.length === 0) lines.push('  empty: the next incremental run sends every row');
  for (const r of s.resources)
    lines.push(
      `  ${r.resource.padEnd(16)}  ${n(r.count).padStart(12)} ${r.kind === 'entity' ? 'keys' : 'events'}${r.inDoubt === undefined ? '' : `, ${n(r.inDoubt)} in doubt`}`,
    );
  lines.push(
    s.lastRun === null ? 'Last run: none applied' : `Last run: ${s.lastRun.runId} (last accepted row ${s.lastRun.at})`,
  );
  return `${lines.join('\n')}\n`;
}

function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KB`;
  return `${(bytes / 1024 / 1024).toFixed(1)} MB`;
}

/**
 * Applies what the job's runs committed and the state has not yet (the caller holds the lock).
 * Only into a state that knows its target, so that only runs sent to its account are applied.
 */
function catchUpWithRuns(state: SyncState, stateDir: string, cwd: string): void {
  if (state.target() !== undefined) catchUp(state, stateDir, (runDir) => openSyncFeed(runDir, { cwd }), { cwd });
}
