import { dirname, resolve } from 'node:path';
import { ConfigError } from '../errors.js';
import { readConfigFile, parseWith } from './_read-config-file.js';
import { JobFileSchema } from './job-schema.js';
import { resolveMapping, type MappingOverrides } from './load-mapping.js';
import type { ResolvedMapping } from './mapping-schema.js';

/** What a command works on: the mappings of a job file, or a single mapping file. */
export interface LoadedJob {
  /** The file the user named (job or mapping), absolute. */
  readonly file: string;
  readonly kind: 'job' | 'mapping';
  /** In the order listed; the pipeline orders them by dependency. */
  readonly mappings: readonly ResolvedMapping[];
  /** The job file's `sync:` setting; absent for a mapping file or a job without it. */
  readonly sync?: 'incremental';
}

/**
 * Every command accepts either a job file (`mappings:` list) or a single mapping file.
 * All mapping files are validated before anything is read, and all their problems reported.
 */
export async function loadJob(path: string, overrides: MappingOverrides = {}): Promise<LoadedJob> {
  const cwd = overrides.cwd ?? process.cwd();
  const file = resolve(cwd, path);
  const doc = await readConfigFile(file);
  const isJob = typeof doc.data === 'object' && doc.data !== null && 'mappings' in doc.data;
  if (!isJob) return { file, kind: 'mapping', mappings: [resolveMapping(doc, overrides)] };
  if (overrides.input !== undefined) {
    throw new ConfigError(
      'CONFIG_INVALID',
      `${file}: --input replaces the CSV of a single mapping; a job file lists several`,
    );
  }
  const job = parseWith(doc, JobFileSchema);
  const mappings: ResolvedMapping[] = [];
  const problems: string[] = [];
  const listed = new Map<string, string>();
  for (const rel of job.mappings) {
    // The same mapping twice would send each of its rows twice.
    const mappingPath = resolve(dirname(file), rel);
    const first = listed.get(mappingPath);
    if (first !== undefined) {
      problems.push(`${file}: mapping ${rel} is listed twice (also as ${first}); each of its rows would be sent twice`);
      continue;
    }
    listed.set(mappingPath, rel);
    try {
      mappings.push(resolveMapping(await readConfigFile(mappingPath)));
    } catch (error) {
      if (!(error instanceof ConfigError)) throw error;
      problems.push(error.message);
    }
  }
  if (problems.length > 0) throw new ConfigError('CONFIG_INVALID', problems.join('\n'));
  return { file, kind: 'job', mappings, ...(job.sync !== undefined ? { sync: job.sync } : {}) };
}
