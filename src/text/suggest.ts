import { closest, distance } from 'fastest-levenshtein';

/**
 * The candidate a mistyped value most likely meant: the nearest by edit distance, case folded,
 * when it is within a third of the candidate's length (at least one edit); else none, since a
 * far-off suggestion (`view` for `shipped`) misleads more than it helps. Returned as listed.
 * `maxEdits` replaces that allowance with a fixed one (time zone names are long, typos in them short).
 */
export function nearest(value: string, candidates: readonly string[], maxEdits?: number): string | undefined {
  if (candidates.length === 0) return undefined;
  const folded = candidates.map((c) => c.toLowerCase());
  const text = value.toLowerCase();
  const near = closest(text, folded);
  if (distance(text, near) > (maxEdits ?? Math.max(1, Math.floor(near.length / 3)))) return undefined;
  return candidates[folded.indexOf(near)];
}

/** ` (did you mean "add to cart"?)` to end a message with, or `''` when there is nothing to suggest. */
export function didYouMean(suggestion: string | undefined): string {
  return suggestion === undefined ? '' : ` (did you mean ${JSON.stringify(suggestion)}?)`;
}
