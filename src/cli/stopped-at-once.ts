import { DEFAULTS } from '../defaults.js';
import { ALERT_TIMEOUT_MS } from '../notify/send-notification.js';
import type { EarlyArgs } from './early-args.js';
/**
 * What the process says when a second signal (or the drain timeout) stops it at once. A live run
 * that has its folder names the command that resumes it; a new run stopped before that folder
 * existed has sent nothing and left nothing to resume, so it says that instead.
 */
export function stoppedAtOnceNotice(sig: string, live: boolean, resumeCommand: string | undefined): string {
  if (!live) return `stopped at once (${sig})`;
  return resumeCommand !== undefined
    ? `stopped at once (${sig}); continue the run with: ${resumeCommand}`
    : `stopped at once (${sig}) before the run began; nothing was sent`;
}

/**
 * What continues the run before the command has found its folder: a resume (`resume`, `import
 * --resume`) continues a run that exists already; a new run has nothing to resume until its
 * folder exists (undefined).
 */
export function resumeCommandAtStart(args: EarlyArgs): string | undefined {
  const resumes = args.command === 'resume' || (args.command === 'import' && args.resume);
  return resumes ? 'engage-import resume' : undefined;
}

/**
 * How long the first signal lets the requests in flight finish before the process stops at once
 * (leaving no report): longer than one request may take (`--request-timeout`, read before the
 * command has parsed its arguments) and than the alert after it (10 s), so that they end, by
 * answer or timeout, and the run writes its report, logs its end and sends its alert. At least
 * 30 s; at most what a timer can wait (about 24 days).
 */
export function drainTimeoutMs(args: EarlyArgs): number {
  const seconds = Number(args.requestTimeout);
  const request = Number.isFinite(seconds) && seconds > 0 ? seconds : DEFAULTS.requestTimeoutSeconds;
  // The alert's own limit (`sendNotification`'s), which the run may spend after its last request.
  return Math.min(Math.max(30_000, (request + 5) * 1000 + ALERT_TIMEOUT_MS), MAX_TIMER_MS);
}

/** The longest wait a Node timer takes (2^31 − 1 ms); a longer one fires at once. */
const MAX_TIMER_MS = 2 ** 31 - 1;
