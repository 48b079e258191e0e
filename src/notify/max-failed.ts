/** `--max-failed`: how many rows that are not ok a run may have and still exit 0. */
export type MaxFailed =
  | { readonly kind: 'count'; readonly rows: number }
  | { readonly kind: 'percent'; readonly percent: number };

/** `3` (rows) or `0.5%` (of the rows read). Throws a message for yargs to show as a usage error. */
export function parseMaxFailed(text: string): MaxFailed {
  const t = String(text).trim();
  const percent = /^(\d+(?:\.\d+)?)%$/.exec(t);
  if (percent) {
    const p = Number(percent[1]);
    if (p <= 100) return { kind: 'percent', percent: p };
  }
  if (/^\d+$/.test(t) && Number.isSafeInteger(Number(t))) return { kind: 'count', rows: Number(t) };
  throw new Error(
    `--max-failed must be a number of rows (3) or a percentage of the rows (0.5%), got ${JSON.stringify(t)}`,
  );
}

/**
 * Whether `bad` rows out of `total` are within the limit. A percentage is of the rows read, and
 * `bad` must be at most that share (0.5% of 1,000 rows allows 5).
 */
export function withinMaxFailed(limit: MaxFailed, bad: number, total: number): boolean {
  if (limit.kind === 'count') return bad <= limit.rows;
  return bad <= Math.floor((total * limit.percent) / 100 + 1e-9);
}

export function formatMaxFailed(limit: MaxFailed): string {
  return limit.kind === 'count' ? `${limit.rows} row${limit.rows === 1 ? '' : 's'}` : `${limit.percent}%`;
}
