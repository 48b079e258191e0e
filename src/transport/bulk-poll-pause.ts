/**
 * When to poll a running import again. The backoff (1, 2, 4, 8, then 15 s) alone sees an import
 * end up to half its wait late: at the documented 450 rows/s a 5,000-row import ends at 11.1 s and
 * is seen at 15 s. The status answer carries the import's progress (`total_count`, `succeeded`,
 * `failed`), so the pause is shortened to when that progress says the import ends. It is never
 * longer than the backoff's: an answer without progress, or an estimate that is wrong, polls as
 * the backoff does. An import that has done every row but still says it runs is closing: it is
 * asked again after a tenth of its time so far (never sooner than the floor), so a service that
 * takes long to close is asked less and less often.
 */
import type { ImportStatusReport } from './bulk-answers.js';

/** The estimate is stretched by this much, so that the poll lands just after the end, not before it. */
const MARGIN = 1.1;
/** Never poll sooner than this after the last poll: the polls share the rate limit with the run. */
export const MIN_POLL_PAUSE_MS = 500;
/** An import with every row done is asked again after this share of its time so far. */
const CLOSING_SHARE = 0.1;

/**
 * The pause before the next poll: the backoff's, or less when the last status shows the import's
 * progress. `elapsedMs` is the time since the wait began (the upload's answer), when that status
 * was read: the rate so far is its rows done over that time.
 */
export function pauseBeforePoll(backoffMs: number, elapsedMs: number, last: ImportStatusReport | undefined): number {
  if (last === undefined || last.state !== 'running' || last.totalCount === undefined) return backoffMs;
  const done = (last.succeeded ?? 0) + (last.failed ?? 0);
  if (done <= 0 || elapsedMs <= 0) return backoffMs;
  if (done >= last.totalCount)
    return Math.min(backoffMs, Math.max(MIN_POLL_PAUSE_MS, Math.ceil(elapsedMs * CLOSING_SHARE)));
  const remainingMs = ((last.totalCount - done) * elapsedMs) / done;
  return Math.min(backoffMs, Math.max(MIN_POLL_PAUSE_MS, Math.ceil(remainingMs * MARGIN)));
}

/**
 * When the client's polls see an import of `rows` end, the service doing `rowsPerS` from the
 * upload's answer on: this module's pauses replayed on the backoff `delays`. For estimates (a dry
 * run's, the bulk bench's projection), not for the wait itself.
 */
export function pollsToSeeEnd(
  rows: number,
  rowsPerS: number,
  delays: readonly number[],
): { readonly ms: number; readonly polls: number } {
  let ms = 0;
  let last: ImportStatusReport | undefined;
  for (let round = 0; ; round++) {
    ms += pauseBeforePoll(delays[Math.min(round, delays.length - 1)]!, ms, last);
    const done = Math.min(rows, Math.floor((rowsPerS * ms) / 1000));
    if (done >= rows) return { ms, polls: round + 1 };
    last = {
      importId: '',
      status: 'running',
      state: 'running',
      totalCount: rows,
      succeeded: done,
      failed: 0,
      rowsWithErrors: [],
    };
  }
}
