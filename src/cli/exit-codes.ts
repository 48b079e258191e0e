/** Exit codes of every command (issues 2 and 4). Cron jobs branch on these. */
export const EXIT = {
  /** Every row valid (dry run) or ok (import). */
  OK: 0,
  /** Some rows invalid, failed, skipped or unknown: read the report. */
  ROWS_NOT_OK: 1,
  /** Usage or configuration error: nothing was sent. */
  USAGE: 2,
  /** The run was aborted (401, or a fatal transport error): rows not sent are `not_sent`. */
  ABORTED: 3,
  /** A bug in the tool: the message and stack go to stderr. */
  INTERNAL: 70,
  /** Stopped by SIGINT / SIGTERM (128 + signal number, as shells report it). */
  SIGINT: 130,
  SIGTERM: 143,
} as const;
