import { existsSync, realpathSync, statSync } from 'node:fs';
import { basename, dirname, join, relative, resolve, sep, isAbsolute } from 'node:path';
import type { LoadedJob } from '../config/load-job.js';
import type { ResolvedMapping } from '../config/mapping-schema.js';
import { ConfigError } from '../errors.js';
import { rejectsFiles } from '../report/rejects-writer.js';
import { displayPath } from '../text/display-path.js';

/** An output file the run will write, with the option that named it. */
interface OutputFile {
  readonly option: string;
  readonly path: string;
}

/** A file or folder the run needs intact that is not an input of the job (the key file, the state folder). */
export interface ProtectedPath {
  readonly path: string;
  /** How the message names it: `the --api-key-file`, `the --state-dir`. */
  readonly what: string;
  /** A folder: nothing inside it may be written either. */
  readonly folder?: boolean;
}

export interface OutputOptions {
  readonly cwd: string;
  readonly report: string;
  readonly rejects?: string | undefined;
  readonly payloads?: string | undefined;
  /** Files and folders besides the job's inputs that no output may name. */
  readonly protect?: readonly ProtectedPath[] | undefined;
}

/**
 * The files a run (dry or live) will write, checked against its inputs and each other before
 * anything is opened (see `checkOutputs`).
 * @returns the rejects file of each mapping (`rejectsFiles`), when `--rejects` was given.
 */
export function planOutputs(
  job: LoadedJob,
  mappings: readonly ResolvedMapping[],
  options: OutputOptions,
): Map<string, string> | undefined {
  const rejects =
    options.rejects === undefined ? undefined : rejectsFiles(options.rejects, job.kind === 'job', mappings);
  const outputs: OutputFile[] = [{ option: '--report', path: options.report }];
  for (const path of new Set(rejects?.values())) outputs.push({ option: '--rejects', path });
  if (options.payloads !== undefined) outputs.push({ option: '--payloads', path: options.payloads });
  checkOutputs(job, outputs, options);
  return rejects;
}

/** What a path is, twice: the device and inode of an existing file (hard links share them), and its real path. */
interface Identity {
  readonly inode: string | undefined;
  readonly real: string;
}

/**
 * Refuses a run whose outputs would overwrite one of its inputs (a CSV, a mapping, the job), a
 * protected file (the API key file, anything inside the state folder) or each other, before
 * anything is opened. Feeding a rejects file back is the natural way to get this wrong
 * (`--input rejects.csv --rejects rejects.csv`): writing it would truncate the file being read,
 * and reading on would read the run's own output. Files are compared by device and inode, so a
 * hard link or a second mount of the same file is caught as well as a symlink.
 */
function checkOutputs(job: LoadedJob, outputs: readonly OutputFile[], options: OutputOptions): void {
  const { cwd } = options;
  const inputs: { id: Identity; what: string; folder: boolean }[] = [
    { id: identify(job.file), what: `the ${job.kind} file`, folder: false },
  ];
  for (const m of job.mappings) {
    inputs.push({ id: identify(m.mappingFile), what: 'a mapping file of the job', folder: false });
    inputs.push({
      id: identify(m.source.path),
      what: `the CSV read by ${displayPath(m.mappingFile, cwd)}`,
      folder: false,
    });
  }
  for (const p of options.protect ?? []) inputs.push({ id: identify(p.path), what: p.what, folder: p.folder ?? false });
  const written: { id: Identity; option: string }[] = [];
  for (const { option, path } of outputs) {
    const shown = displayPath(path, cwd);
    if (/[\\/]$/.test(path) || isFolder(path)) {
      throw new ConfigError(
        'USAGE',
        `${option} ${shown} is a folder: name a file (for example ${join(shown, option === '--payloads' ? 'payloads.ndjson' : 'report.csv')})`,
      );
    }
    const at = identify(path);
    const input = inputs.find((i) => same(i.id, at) || (i.folder && inside(at.real, i.id.real)));
    if (input !== undefined) {
      const verb = input.folder && !same(input.id, at) ? 'is inside' : 'is';
      const needs = input.folder || (options.protect ?? []).some((p) => same(identify(p.path), at)) ? 'needs' : 'reads';
      throw new ConfigError(
        'USAGE',
        `${option} ${shown} ${verb} ${input.what}: writing it would destroy what the run ${needs}; name another file`,
      );
    }
    const other = written.find((w) => same(w.id, at));
    if (other !== undefined)
      throw new ConfigError('USAGE', `${option} and ${other.option} both name ${shown}: give each its own file`);
    written.push({ id: at, option });
  }
}

/** Whether `path` is `folder` or lies inside it, links resolved (a path that does not exist yet: by its folder). */
export function isInFolder(path: string, folder: string): boolean {
  const at = canonical(path);
  const dir = canonical(folder);
  return at === dir || inside(at, dir);
}

/** Whether two paths name one file or folder: by device and inode (hard links, mounts), or by real path. */
export function isSameFile(a: string, b: string): boolean {
  return same(identify(a), identify(b));
}

function same(a: Identity, b: Identity): boolean {
  return (a.inode !== undefined && a.inode === b.inode) || a.real === b.real;
}

function inside(path: string, folder: string): boolean {
  const rel = relative(folder, path);
  return rel !== '' && !rel.startsWith(`..${sep}`) && rel !== '..' && !isAbsolute(rel);
}

function isFolder(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

function identify(path: string): Identity {
  let inode: string | undefined;
  try {
    const s = statSync(path, { bigint: true });
    inode = `${s.dev}:${s.ino}`;
  } catch {
    inode = undefined;
  }
  return { inode, real: canonical(path) };
}

/** The file's real path (links resolved), or for one that does not exist yet, its folder's. */
function canonical(path: string): string {
  const absolute = resolve(path);
  if (existsSync(absolute)) return realpathSync(absolute);
  const folder = dirname(absolute);
  return existsSync(folder) ? join(realpathSync(folder), basename(absolute)) : absolute;
}
