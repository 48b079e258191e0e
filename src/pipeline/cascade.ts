import type { ResourceDef } from '../resources/index.js';
import { keyOf, type FailedParents, type Failure } from './failed-parents.js';

interface RowOfStage {
  readonly line: number;
  readonly payload?: Readonly<Record<string, unknown>> | undefined;
}

/**
 * What a row's outcome tells later stages, as plain data: the entities' keys (`keyOf`) that
 * succeeded, or that failed and where. Data rather than a function, so that a line held behind a
 * slow row can wait on disk with its effect (`ReportWindow` spills them).
 */
export type CascadeEffect =
  | { readonly succeeded: readonly string[] }
  | { readonly failed: readonly string[]; readonly failure: Failure };

/**
 * What a row's outcome tells the rows of later stages that name it as a parent: the effects are
 * applied when its report line is written (see `Settled`), and `blockedBy` says why a child is skipped.
 */
export interface Cascade {
  succeeded(row: RowOfStage, id: string | undefined): CascadeEffect;
  failed(row: RowOfStage, how: 'failed' | 'invalid' | 'skipped'): CascadeEffect;
  /** Applies an effect, in input order. */
  apply(effect: CascadeEffect): void;
  /** The message of a row whose parent failed, or undefined when it may be sent. */
  blockedBy(payload: Readonly<Record<string, unknown>>): string | undefined;
}

export function cascadeOf(def: ResourceDef, file: string, parents: FailedParents): Cascade {
  // The entity keys are taken now, as strings: an effect waits in the report window (up to a bulk
  // chunk's worth of lines), and one that kept its row would keep the whole row (cells, payload,
  // request) alive with it.
  return {
    succeeded: (row, id) => ({ succeeded: def.identity(row.payload ?? {}, id).map(keyOf) }),
    failed: (row, how) => ({
      failed: def.identity(row.payload ?? {}, undefined).map(keyOf),
      failure: { file, line: row.line, how },
    }),
    apply: (effect) => {
      if ('succeeded' in effect) parents.succeedKeys(effect.succeeded);
      else parents.failKeys(effect.failed, effect.failure);
    },
    blockedBy: (payload) => parents.blockedBy(def.parents(payload)),
  };
}
