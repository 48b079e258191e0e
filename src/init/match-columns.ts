import { distance } from 'fastest-levenshtein';
import type { TargetField } from './targets.js';

export type MatchHow = 'exact name' | 'name ignoring case, spaces and underscores' | 'synonym' | 'similar name';

export interface ColumnMatch {
  readonly field: TargetField;
  readonly column: string;
  readonly how: MatchHow;
  /** For a synonym or a similar name: the name it matched (`e-mail`). */
  readonly via?: string;
}

/** `E-Mail`, `e_mail`, `E mail`, `Data zamknięcia` → `email`, `email`, `email`, `datazamkniecia`. */
function normaliseName(name: string): string {
  return name
    .normalize('NFD')
    .replace(/\p{M}/gu, '')
    .replace(/ł/g, 'l')
    .replace(/Ł/g, 'L')
    .toLowerCase()
    .replace(/[\s_\-.]+/g, '');
}

/** A typo allowance: one edit per four characters, none for names shorter than four. */
function closeEnough(a: string, b: string): number | undefined {
  if (a.length < 4 || b.length < 4) return undefined;
  const d = distance(a, b);
  return d > 0 && d <= Math.floor(Math.max(a.length, b.length) / 4) ? d : undefined;
}

/**
 * Pairs target fields with columns, each column used once. The rules run one after the other
 * over all fields (exact name, then ignoring case/spaces/underscores, then synonyms, then edit
 * distance), so a loose rule never takes a column that a stricter one gives to another field.
 */
export function matchColumns(
  header: readonly string[],
  fields: readonly TargetField[],
): { matches: ColumnMatch[]; unmatched: string[] } {
  const used = new Set<string>();
  const found = new Map<TargetField, ColumnMatch>();
  const take = (field: TargetField, column: string, how: MatchHow, via?: string) => {
    used.add(column);
    found.set(field, { field, column, how, ...(via !== undefined ? { via } : {}) });
  };
  const free = () => header.filter((c) => !used.has(c));
  for (const field of fields) {
    const column = free().find((c) => c === field.target);
    if (column !== undefined) take(field, column, 'exact name');
  }
  for (const field of fields.filter((f) => !found.has(f))) {
    const column = free().find((c) => normaliseName(c) === normaliseName(field.target));
    if (column !== undefined) take(field, column, 'name ignoring case, spaces and underscores');
  }
  for (const field of fields.filter((f) => !found.has(f))) {
    // Synonyms in the order listed: the first is the likeliest name.
    for (const synonym of field.synonyms) {
      const column = free().find((c) => normaliseName(c) === normaliseName(synonym));
      if (column !== undefined) {
        take(field, column, 'synonym', synonym);
        break;
      }
    }
  }
  for (const field of fields.filter((f) => !found.has(f))) {
    let best: { column: string; d: number; via: string } | undefined;
    for (const column of free()) {
      for (const name of [field.target, ...field.synonyms]) {
        const d = closeEnough(normaliseName(column), normaliseName(name));
        if (d !== undefined && (best === undefined || d < best.d)) best = { column, d, via: name };
      }
    }
    if (best !== undefined) take(field, best.column, 'similar name', best.via);
  }
  const matches = fields.flatMap((f) => found.get(f) ?? []);
  return { matches, unmatched: header.filter((c) => !used.has(c)) };
}
