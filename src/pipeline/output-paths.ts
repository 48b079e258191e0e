import { existsSync, realpathSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import type { LoadedJob } from '../config/load-job.js';
import type { ResolvedMapping } from '../config/mapping-schema.js';
import { ConfigError } from '../errors.js';
import { rejectsFiles } from '../report/rejects-writer.js';
import { displayPath } from './display-path.js';

/** An output file the run will write, with the option that named it. */
interface OutputFile {
  readonly option: string;
  readonly path: string;
}

export interface OutputOptions {
  readonly cwd: string;
  readonly report: string;
  readonly rejects?: string | undefined;
  readonly payloads?: string | undefined;
}

/**
 * The files a run (dry or live) will write, checked against its inputs and each other before
 * anything is opened (see `checkOutputs`).
 * @returns the rejects file of each mapping (`rejectsFiles`), when `--rejects` was given.
 */
export function planOutputs(job: LoadedJob, mappings: readonly ResolvedMapping[], options: OutputOptions): Map<string, string> | undefined {
  const rejects = options.rejects === undefined ? undefined : rejectsFiles(options.rejects, job.kind === 'job', mappings);
  const outputs: OutputFile[] = [{ option: '--report', path: options.report }];
  for (const path of new Set(rejects?.values())) outputs.push({ option: '--rejects', path });
  if (options.payloads !== undefined) outputs.push({ option: '--payloads', path: options.payloads });
  checkOutputs(job, outputs, options.cwd);
  return rejects;
}

/**
 * Refuses a run whose outputs would overwrite one of its inputs (a CSV, a mapping, the job) or
 * each other, before anything is opened. Feeding a rejects file back is the natural way to get
 * this wrong (`--input rejects.csv --rejects rejects.csv`): writing it would truncate the file
 * being read, and reading on would read the run's own output.
 */
function checkOutputs(job: LoadedJob, outputs: readonly OutputFile[], cwd: string): void {
  const inputs = new Map<string, string>([[canonical(job.file), `the ${job.kind} file`]]);
  for (const m of job.mappings) {
    const mappingFile = canonical(m.mappingFile);
    if (!inputs.has(mappingFile)) inputs.set(mappingFile, 'a mapping file of the job');
    inputs.set(canonical(m.source.path), `the CSV read by ${displayPath(m.mappingFile, cwd)}`);
  }
  const written = new Map<string, string>();
  for (const { option, path } of outputs) {
    const at = canonical(path);
    const input = inputs.get(at);
    if (input !== undefined) {
      throw new ConfigError('USAGE', `${option} ${displayPath(path, cwd)} is ${input}: writing it would destroy what the run reads; name another file`);
    }
    const other = written.get(at);
    if (other !== undefined) throw new ConfigError('USAGE', `${option} and ${other} both name ${displayPath(path, cwd)}: give each its own file`);
    written.set(at, option);
  }
}

/** The file's real path (links resolved), or for one that does not exist yet, its folder's. */
function canonical(path: string): string {
  const absolute = resolve(path);
  if (existsSync(absolute)) return realpathSync(absolute);
  const folder = dirname(absolute);
  return existsSync(folder) ? join(realpathSync(folder), basename(absolute)) : absolute;
}
