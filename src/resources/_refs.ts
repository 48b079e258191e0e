import type { EntityRef } from './resource-def.js';

const DIGITS = /^\d+$/;

/**
 * The text of a reference: an integer in decimal (`42` → `'42'`); a custom id as it is; an id
 * given as text (a response id) only when it is digits. Anything else (an invalid row's bad value)
 * names no entity.
 */
export function refValue(value: unknown, by: EntityRef['by'] = 'custom_id'): string | undefined {
  if (Number.isSafeInteger(value)) return String(value);
  if (typeof value !== 'string' || value === '') return undefined;
  return by === 'custom_id' || DIGITS.test(value) ? value : undefined;
}

/** Pushes the reference when `value` names an entity. */
export function pushRef(refs: EntityRef[], kind: EntityRef['kind'], by: EntityRef['by'], value: unknown): void {
  const text = refValue(value, by);
  if (text !== undefined) refs.push({ kind, by, value: text });
}

/** Pushes a reference per item of a list; a value that is not a list is ignored. */
export function pushRefs(refs: EntityRef[], kind: EntityRef['kind'], by: EntityRef['by'], values: unknown): void {
  if (Array.isArray(values)) for (const value of values) pushRef(refs, kind, by, value);
}

/** Each reference once, in first-seen order. */
export function uniqueRefs(refs: readonly EntityRef[]): EntityRef[] {
  const seen = new Set<string>();
  return refs.filter((r) => {
    const key = `${r.kind}\u0000${r.by}\u0000${r.value}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}
