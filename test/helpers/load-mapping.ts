import { resolve } from 'node:path';
import { readConfigFile } from '../../src/config/_read-config-file.js';
import { resolveMapping, type MappingOverrides } from '../../src/config/load-mapping.js';
import type { ResolvedMapping } from '../../src/config/mapping-schema.js';

/** Read, validate and resolve one mapping file, as a job file's loader does for each of its mappings. */
export async function loadMapping(path: string, overrides: MappingOverrides = {}): Promise<ResolvedMapping> {
  const abs = resolve(overrides.cwd ?? process.cwd(), path);
  return resolveMapping(await readConfigFile(abs), overrides);
}
