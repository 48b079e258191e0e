import { existsSync, realpathSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import type { LoadedJob } from '../config/load-job.js';
import { ConfigError } from '../errors.js';
import { displayPath } from './display-path.js';

/** An output file the run will write, with the option that named it. */
export interface OutputFile {
  readonly option: string;
  readonly path: string;
}

/** The files a run writes, named by the options that asked for them. */
export function outputsOf(
  options: { readonly report: string; readonly payloads?: string | undefined },
  rejects: ReadonlyMap<string, string> | undefined,
): OutputFile[] {
  const outputs: OutputFile[] = [{ option: '--report', path: options.report }];
  for (const path of new Set(rejects?.values())) outputs.push({ option: '--rejects', path });
  if (options.payloads !== undefined) outputs.push({ option: '--payloads', path: options.payloads });
  return outputs;
}

/**
 * Refuses a run whose outputs would overwrite one of its inputs (a CSV, a mapping, the job) or
 * each other, before anything is opened. Feeding a rejects file back is the natural way to get
 * this wrong (`--input rejects.csv --rejects rejects.csv`): writing it would truncate the file
 * being read, and reading on would read the run's own output.
 */
export function checkOutputs(job: LoadedJob, outputs: readonly OutputFile[], cwd: string): void {
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
