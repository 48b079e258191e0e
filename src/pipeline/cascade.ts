import type { ResourceDef } from '../resources/index.js';
import type { FailedParents } from './failed-parents.js';

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
  return {
    succeeded: (row, id) => () => parents.succeed(def.identity(row.payload ?? {}, id)),
    failed: (row, how) => () => parents.fail(def.identity(row.payload ?? {}, undefined), { file, line: row.line, how }),
    blockedBy: (payload) => parents.blockedBy(def.parents(payload)),
  };
}
