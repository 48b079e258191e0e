import { loadMapping } from '../config/load-mapping.js';
import { openSources } from '../pipeline/open-sources.js';
import { planRows } from '../pipeline/plan-rows.js';
import { ErrorGroups } from '../report/error-groups.js';

export interface MappingCheck {
  readonly rows: number;
  readonly invalid: number;
  readonly errors: ErrorGroups;
  /** A signal stopped the reading: `rows` are the rows read before it. */
  readonly interrupted?: true;
}

/**
 * The written mapping, loaded and run over its whole file exactly as `validate` does (same
 * loader, same reader, same row checks), without writing a report: the rows that would fail and
 * why go into the mapping's comments.
 */
export async function checkMapping(mappingPath: string, signal?: AbortSignal): Promise<MappingCheck> {
  const mapping = await loadMapping(mappingPath);
  const [opened] = await openSources([mapping]);
  const errors = new ErrorGroups();
  let rows = 0;
  let invalid = 0;
  for await (const row of planRows(mapping, opened!.source, {})) {
    if (signal?.aborted === true) {
      opened!.source.close();
      return { rows, invalid, errors, interrupted: true };
    }
    rows++;
    if (row.status === 'invalid') {
      invalid++;
      errors.add('invalid', row.line, row.message);
    }
  }
  return { rows, invalid, errors };
}
