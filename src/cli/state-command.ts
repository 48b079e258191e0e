import { resolve } from 'node:path';
import { readableStateDir } from './output-args.js';
import type { Argv } from 'yargs';
import type { ResourceName } from '../config/mapping-schema.js';
import { DEFAULTS } from '../defaults.js';
import { ConfigError, SyncError } from '../errors.js';
import { acquireLock } from '../ledger/lock.js';
import { displayPath } from '../text/display-path.js';
import { listSyncStateFiles, syncStateFile, stateDirBeside } from '../sync/index.js';
import { defineCommand, type CliIo, type OptionsOf } from './command.js';
import { EXIT } from './exit-codes.js';
import { catchUpWithRuns, openExisting } from './open-sync-state.js';
import { runStateExport } from './state-export.js';
import { runStateImport } from './state-import.js';
import { formatShow } from './state-show.js';
import { RESOURCE_NAMES, resourceNamed } from './resource-names.js';

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
    .option('resource', { choices: RESOURCE_NAMES, describe: 'forget: the resource to forget' })
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
    await runStateImport(
      resolve(io.cwd, args.file!),
      args.job === undefined ? undefined : resolve(io.cwd, args.job),
      stateDirOf,
      io,
    );
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
        const resource = resourceNamed(args.resource!);
        const n = state.forget(resource, args.key);
        io.stderr.write(forgotten(resource, args.key, n));
      } finally {
        state.close();
      }
    } finally {
      lock.release();
    }
    return EXIT.OK;
  }

  if (args.action === 'export') {
    await runStateExport(args.file!, stateDir, stateFile, io);
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
      latestRun: state.latestRun() ?? null,
    };
    if (args.json) io.stdout.write(`${JSON.stringify(summary, null, 2)}\n`);
    else io.stdout.write(formatShow(summary, show));
    return EXIT.OK;
  } finally {
    state.close();
  }
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
 * What `state forget` did, and what the next run will make of it: a product the account has
 * already is refused as existing by a per-row create, and an event is not found by the key the
 * report shows.
 */
function forgotten(resource: ResourceName, key: string | undefined, n: number): string {
  const what = key === undefined ? `every ${resource} row` : `${resource} ${key}`;
  if (n === 0) {
    const byIdentity =
      key !== undefined && (resource === 'event' || resource === 'product-event') && !/^[0-9a-f]{64}$/i.test(key)
        ? ` Events are kept by their identity, a hash (the "identity" of their lines in state export), not by the report's key: give that hash, or forget every ${resource} row.`
        : '';
    return `The sync state holds nothing for ${what}; nothing changed.${byIdentity}\n`;
  }
  const them = n === 1 ? 'it' : 'them';
  const products =
    resource === 'product'
      ? ` A product the account has already is refused as existing by a per-row create (POST products/ only creates): send ${them} by bulk import (--bulk always, or bulk: true in the mapping), which updates a product by its custom_id.`
      : '';
  return `Forgot ${what} (${n.toLocaleString('en-US')} row${n === 1 ? '' : 's'}): the next incremental run sends ${them} again.${products}\n`;
}
