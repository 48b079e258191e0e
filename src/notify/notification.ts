import { formatDuration, type RunSummary } from '../report/summary.js';
import { ROW_STATUSES } from '../report/report-line.js';

/** What `--notify-on` lets through: failures only (the default), or every run. */
export type NotifyOn = 'failure' | 'always';

export const shouldNotify = (on: NotifyOn, exitCode: number): boolean => on === 'always' || exitCode !== 0;

export interface RunOutcome {
  /** The job or mapping file as the user named it. */
  readonly job: string;
  readonly exitCode: number;
  /** `ok`, `rows not ok`, `rows not ok (within --max-failed 5)`, `aborted`, `interrupted`. */
  readonly outcome: string;
  readonly durationMs: number;
}

const number = new Intl.NumberFormat('en-US');

/**
 * The body of the POST: `text` is the one line Slack and Teams incoming webhooks display; the
 * rest is the `--json` summary, for a receiver that reads figures.
 */
export function notificationBody(summary: RunSummary, run: RunOutcome): Record<string, unknown> {
  const t = summary.totals;
  const rows = ROW_STATUSES.reduce((n, s) => n + t[s], 0);
  const counts =
    ROW_STATUSES.filter((s) => t[s] > 0)
      .map((s) => `${s} ${number.format(t[s])}`)
      .join(', ') || 'no rows';
  const report = summary.report === undefined ? '' : `; report ${summary.report}`;
  // A run that stopped early says why (a 401, the API unreachable) in the one line a chat shows.
  const why = summary.aborted === undefined ? '' : `: ${summary.aborted}`;
  const text = `engage-import ${run.job}: ${run.outcome}${why} (exit ${run.exitCode}): ${number.format(rows)} rows, ${counts} in ${formatDuration(run.durationMs / 1000)}${report}`;
  return { text, job: run.job, outcome: run.outcome, exit_code: run.exitCode, duration_ms: run.durationMs, summary };
}
