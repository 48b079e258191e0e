/**
 * What one finished import says about each row of its chunk. The service reports counts and
 * lists at most the first 50 failed rows, each in a shape that is not published; a listed row is
 * found by the key it echoes (`data.custom_id`, or `data.email` for contacts); its row number
 * (this sandbox numbers rows as a spreadsheet does: the header is row 1) only picks between rows
 * that echo the same key, since other services may count otherwise. A row is `ok`
 * only when every failure the service counted has been found and the counts add up; otherwise
 * the rows not listed stay `unknown` and are uploaded again in smaller chunks
 * (`bisect-plan.ts`). Never calls a row `ok` that the service may have refused.
 */
import type { RowFailure } from '../errors.js';
import type { ImportStatusReport, ListedRowError } from '../transport/bulk-answers.js';

/** The service lists at most this many failed rows per import (docs/api-contract.md R-BULK-9). */
export const MAX_LISTED_ROWS = 50;

/** A row of the chunk, in upload order: the key the service may echo back. */
export interface ChunkRow {
  /** The row's `custom_id` (or, for a contact without one, its email) as written in the chunk. */
  readonly key: string | undefined;
}

/** `failed`: the import named the row, with the service's words; `unknown`: not decided yet (no message). */
export type RowVerdict = { readonly kind: 'ok' } | RowFailure<'failed'> | { readonly kind: 'unknown' };

export interface ChunkResolution {
  /** One per chunk row, in upload order. */
  readonly verdicts: readonly RowVerdict[];
  /** Failures the service counted but that no listed element could be matched to: hidden among the `unknown` rows. */
  readonly unnamedFailures: number;
  /** The import ended without finishing (or its counts do not add up): its `unknown` rows are uploaded again as they are, not split. */
  readonly uploadAgainWhole: boolean;
}

/**
 * @param keyFields the echoed fields a row's key may be under, in order of preference
 *   (`['custom_id', 'email']` for contacts, `['custom_id']` otherwise).
 */
export function resolveChunk(
  rows: readonly ChunkRow[],
  report: ImportStatusReport,
  keyFields: readonly string[] = ['custom_id'],
): ChunkResolution {
  const verdicts: RowVerdict[] = rows.map(() => ({ kind: 'unknown' }));
  const byKey = new Map<string, number[]>();
  rows.forEach((row, i) => {
    if (row.key === undefined) return;
    const list = byKey.get(row.key);
    if (list === undefined) byKey.set(row.key, [i]);
    else list.push(i);
  });
  const unmatched: ListedRowError[] = [];
  for (const element of report.rowsWithErrors) {
    const index = locate(element, rows.length, byKey, keyFields, verdicts);
    if (index === undefined) unmatched.push(element);
    else verdicts[index] = { kind: 'failed', message: element.message };
  }
  const named = rows.length - verdicts.filter((v) => v.kind === 'unknown').length;

  // A chunk of one row that the service counted as failed: that row failed, with the service's words.
  if (
    rows.length === 1 &&
    named === 0 &&
    report.state === 'finished' &&
    (report.failed ?? report.rowsWithErrors.length) >= 1
  ) {
    const message = unmatched[0]?.message ?? `the import counted the row as failed without saying why`;
    return { verdicts: [{ kind: 'failed', message }], unnamedFailures: 0, uploadAgainWhole: false };
  }
  if (report.state !== 'finished') return { verdicts, unnamedFailures: 0, uploadAgainWhole: true };

  // Without a `failed` count, a full list (50) may hide more; a shorter one is taken as complete.
  const failed =
    report.failed ?? (report.rowsWithErrors.length >= MAX_LISTED_ROWS ? undefined : report.rowsWithErrors.length);
  const countsAddUp =
    failed !== undefined &&
    failed >= named &&
    failed <= rows.length &&
    (report.succeeded === undefined || report.succeeded + failed === rows.length);
  if (!countsAddUp) return { verdicts, unnamedFailures: 0, uploadAgainWhole: true };
  const unnamedFailures = failed - named;
  if (unnamedFailures === 0)
    return {
      verdicts: verdicts.map((v) => (v.kind === 'unknown' ? { kind: 'ok' } : v)),
      unnamedFailures: 0,
      uploadAgainWhole: false,
    };
  return { verdicts, unnamedFailures, uploadAgainWhole: false };
}

/** The chunk index a listed element names, or undefined when it cannot be told (or is already taken). */
function locate(
  element: ListedRowError,
  size: number,
  byKey: ReadonlyMap<string, number[]>,
  keyFields: readonly string[],
  verdicts: readonly RowVerdict[],
): number | undefined {
  const free = (i: number) => i >= 0 && i < size && verdicts[i]!.kind === 'unknown';
  const echoed = keyFields.map((f) => element.data?.[f]).find((v) => typeof v === 'string' || typeof v === 'number');
  if (echoed !== undefined) {
    const candidates = (byKey.get(String(echoed)) ?? []).filter(free);
    if (candidates.length === 0) return undefined;
    // Several rows with one key: the row number picks one (spreadsheet numbering first, then 1-based).
    if (element.row !== undefined) {
      for (const guess of [element.row - 2, element.row - 1]) if (candidates.includes(guess)) return guess;
    }
    return candidates.length === 1 ? candidates[0] : undefined;
  }
  // A row number alone is not trusted: whether the service counts the header, or from 0 or 1, is
  // not published, and a wrong guess would call the refused row ok and its neighbour failed. The
  // element stays unnamed, so the chunk's unknown rows are uploaded again in smaller chunks.
  return undefined;
}
