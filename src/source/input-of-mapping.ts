import { SourceError } from '../errors.js';

/**
 * An input that cannot be opened or read, named with the mapping that points at it: a job of
 * several mappings fails on `events.csv: file not found`, and the line to fix is `source.file` of
 * the mapping that names it. Other errors pass through unchanged.
 */
export function withMappingNamed(
  error: unknown,
  mapping: { readonly mappingFile?: string; readonly source: { readonly fromCommandLine?: true } },
): unknown {
  // A path given with --input is the user's own words: the mapping did not name it.
  const named = mapping.mappingFile !== undefined && mapping.source.fromCommandLine !== true;
  if (!(error instanceof SourceError) || error.code !== 'CSV_READ' || !named) return error;
  return new SourceError('CSV_READ', `${error.message} (source.file of ${mapping.mappingFile})`, { cause: error });
}
