import { checkHeader } from '../config/load-mapping.js';
import type { ResolvedMapping } from '../config/mapping-schema.js';
import { compileMapping } from '../mapping/map-row.js';
import { openCsv, type CsvSource } from '../source/csv-source.js';
import { withMappingNamed } from '../source/input-of-mapping.js';

export interface OpenedSource {
  readonly mapping: ResolvedMapping;
  readonly source: CsvSource;
}

/**
 * Open every CSV of the job and check its header against its mapping before any row is read,
 * so that a broken mapping fails the whole job before row 1 and before any request. On failure the files already opened are released.
 */
export async function openSources(mappings: readonly ResolvedMapping[]): Promise<OpenedSource[]> {
  // Compiling checks what the schema cannot: date formats, map values and defaults of each type.
  for (const mapping of mappings) compileMapping(mapping);
  const opened: OpenedSource[] = [];
  try {
    for (const mapping of mappings) {
      const source = await openCsv({
        path: mapping.source.path,
        delimiter: mapping.source.delimiter,
        encoding: mapping.source.encoding,
      }).catch((error: unknown) => {
        throw withMappingNamed(error, mapping);
      });
      opened.push({ mapping, source });
      checkHeader(mapping, source.header);
    }
    return opened;
  } catch (error) {
    for (const o of opened) o.source.close();
    throw error;
  }
}
