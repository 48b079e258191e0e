import type { ResourceDef } from '../resources/index.js';
import { keyOf, type FailedParents } from './failed-parents.js';

interface RowOfStage {
  readonly line: number;
  readonly payload?: Readonly<Record<string, unknown>> | undefined;
}

/**
 * What a row's outcome tells the rows of later stages that name it as a parent: the effects run
 * when its report line is written (see `Settled`), and `blockedBy` says why a child is skipped.
 */
export interface Cascade {
  succeeded(row: RowOfStage, id: string | undefined): () => void;
  failed(row: RowOfStage, how: 'failed' | 'invalid' | 'skipped'): () => void;
  /** The message of a row whose parent failed, or undefined when it may be sent. */
  blockedBy(payload: Readonly<Record<string, unknown>>): string | undefined;
}

export function cascadeOf(def: ResourceDef, file: string, parents: FailedParents): Cascade {
  // The entity refs are taken now, not when the effect runs: an effect waits in the report window
  // (up to a bulk chunk's worth of lines), and one that kept its row would keep the whole row
  // (cells, payload, request) alive with it.
  return {
    succeeded: (row, id) => {
      // Only the keys' strings: the many unchanged rows of an incremental run wait with theirs.
      const keys = def.identity(row.payload ?? {}, id).map(keyOf);
      return () => parents.succeedKeys(keys);
    },
    failed: (row, how) => {
      const refs = def.identity(row.payload ?? {}, undefined);
      const failure = { file, line: row.line, how };
      return () => parents.fail(refs, failure);
    },
    blockedBy: (payload) => parents.blockedBy(def.parents(payload)),
  };
}
