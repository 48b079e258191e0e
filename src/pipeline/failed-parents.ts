import type { EntityRef } from '../resources/index.js';

/** Where a parent row failed, for the message of the rows that depend on it. */
export interface Failure {
  readonly file: string;
  readonly line: number;
  /** `failed`, `invalid` or `skipped` (a failure further up the chain). */
  readonly how: string;
}

/** An entity's key in the failures (a succeeded effect keeps only these strings: it may wait in the report window). */
export const keyOf = (r: EntityRef) => `${r.kind}\u0000${r.by}\u0000${r.value}`;

/**
 * Parents (products, contacts, deals) that did not make it, so that the rows referencing them in
 * later stages are `skipped` instead of sent to fail (to save the rate budget, and put the root
 * cause next to each affected row). Only the keys of failed rows are kept in memory; a later row
 * that creates the same entity successfully clears the failure.
 */
export class FailedParents {
  private readonly failures = new Map<string, Failure>();

  fail(identity: readonly EntityRef[], failure: Failure): void {
    this.failKeys(identity.map(keyOf), failure);
  }

  /** `fail` by the entities' keys (`keyOf`). */
  failKeys(keys: readonly string[], failure: Failure): void {
    for (const key of keys) this.failures.set(key, failure);
  }

  succeed(identity: readonly EntityRef[]): void {
    this.succeedKeys(identity.map(keyOf));
  }

  /** `succeed` by the entities' keys (`keyOf`). */
  succeedKeys(keys: readonly string[]): void {
    if (this.failures.size === 0) return;
    for (const key of keys) this.failures.delete(key);
  }

  /** The message for a row whose parents include a failed one, or undefined when all are fine. */
  blockedBy(parents: readonly EntityRef[]): string | undefined {
    if (this.failures.size === 0) return undefined;
    for (const ref of parents) {
      const f = this.failures.get(keyOf(ref));
      if (f)
        return `depends on ${ref.kind} ${ref.by} '${ref.value}', which ${f.how === 'skipped' ? 'was skipped' : f.how === 'invalid' ? 'was invalid' : 'failed'} at ${f.file} line ${f.line}`;
    }
    return undefined;
  }

  get size(): number {
    return this.failures.size;
  }
}
