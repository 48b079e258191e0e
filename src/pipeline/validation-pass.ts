import type { ResolvedMapping } from '../config/mapping-schema.js';
import type { SourceClassifier } from '../sync/index.js';
import { resourceDef, type ResourceDef } from '../resources/index.js';
import { FailedParents, type Failure } from './failed-parents.js';
import { openSources } from './open-sources.js';
import { planRows, type PlannedRow, type PlanOptions } from './plan-rows.js';

/** Records and invalid records of one input file. */
export interface FileCounts {
  readonly rows: number;
  readonly invalid: number;
}

/**
 * The local validation of the whole job before any request: totals for progress,
 * `--fail-on-invalid`, and a broken mapping or an undecodable file fails before anything is sent.
 * The counts of a pass stopped by `signal` are partial; they only size the progress bars.
 */
export async function validationPass(
  mappings: readonly ResolvedMapping[],
  options: PlanOptions,
  signal?: AbortSignal,
  /**
   * The sync classifier of each file (run order). Files that need a first reading of their keys
   * (entities: the later row wins) get it here, in the reading the run does anyway.
   */
  syncOf?: (index: number, mapping: ResolvedMapping, header: readonly string[]) => SourceClassifier | undefined,
): Promise<FileCounts[]> {
  const sources = await openSources(mappings);
  const counts: FileCounts[] = [];
  // Parents that are invalid here will fail in the run, and their children be skipped (`noteRow`).
  const invalidParents = new FailedParents();
  try {
    for (const [index, { mapping, source }] of sources.entries()) {
      const sync = syncOf?.(index, mapping, source.header);
      const note = sync?.needsFirstPass === true ? sync : undefined;
      const def = resourceDef(mapping.resource);
      const failure = { file: source.path, line: 0, how: 'invalid' };
      let rows = 0;
      let invalid = 0;
      for await (const row of planRows(mapping, source, options)) {
        // A Ctrl-C here stops the reading at once: the run then reports every row not_sent.
        if (signal?.aborted) break;
        rows++;
        if (row.status === 'invalid') invalid++;
        noteRow(row, def, invalidParents, failure, note);
      }
      counts.push({ rows, invalid });
    }
  } finally {
    // A file that fails part-way leaves the ones after it unread: release them too.
    for (const { source } of sources) source.close();
  }
  return counts;
}

/**
 * One row of the first reading of a file, in input order. Parents that are invalid here will fail
 * in the run, and their children be skipped: such a child fails its own entities in turn, and is
 * never noted as the row of its key that wins, or the earlier row it superseded would not be sent
 * either. (A parent the API refuses is known only when the run gets there.) Any other valid row
 * clears its entities (a later row that creates one makes it) and is noted.
 */
export function noteRow(
  row: PlannedRow,
  def: ResourceDef,
  invalidParents: FailedParents,
  failure: Failure,
  note: Pick<SourceClassifier, 'note'> | undefined,
): void {
  if (row.status === 'invalid') invalidParents.fail(def.identity(row.payload ?? {}, undefined), failure);
  else if (invalidParents.blockedBy(def.parents(row.payload)) !== undefined)
    invalidParents.fail(def.identity(row.payload, undefined), failure);
  else {
    invalidParents.succeed(def.identity(row.payload, undefined));
    note?.note(row);
  }
}
