/**
 * Which rows to upload again, and in which sub-chunks, when an import counted more failures than
 * it listed (it lists at most 50). The importer is an upsert, so uploading a row again leaves the
 * same record: safe. The rows whose outcome is still unknown are split into consecutive
 * sub-chunks small enough that each should hold at most half the listing limit of failures (if
 * failures are spread evenly), and never fewer than two, so every round makes the chunks
 * strictly smaller: at worst a row ends alone in a chunk, and a lone row's failure is always
 * named. Pure: the caller uploads, waits and resolves each sub-chunk (`settle-chunk.ts`).
 */
import { MAX_LISTED_ROWS } from './row-outcomes.js';

/**
 * @param unknown positions of the rows whose outcome is not known, in upload order.
 * @param unnamedFailures failures among them that the service counted but did not list.
 * @returns sub-chunks (positions, in order); empty when there is nothing to upload.
 */
export function planBisection(
  unknown: readonly number[],
  unnamedFailures: number,
  maxListed = MAX_LISTED_ROWS,
): number[][] {
  if (unknown.length === 0) return [];
  if (unnamedFailures <= 0) return [[...unknown]];
  const parts = Math.min(unknown.length, Math.max(2, Math.ceil((2 * unnamedFailures) / maxListed)));
  const chunks: number[][] = [];
  for (let p = 0; p < parts; p++) {
    const from = Math.floor((p * unknown.length) / parts);
    const to = Math.floor(((p + 1) * unknown.length) / parts);
    chunks.push(unknown.slice(from, to));
  }
  return chunks;
}
