/**
 * Waiting for one bulk import: poll its status with backoff, sooner when its progress says it
 * ends sooner (`bulk-poll-pause.ts`), until it ends, the timeout passes, or the run stops. The polls go through the run's transport (rate limit, 429 pauses, retries).
 */
import { parseImportStatus, type ImportStatusReport } from './bulk-answers.js';
import { pauseBeforePoll } from './bulk-poll-pause.js';
import type { Transport } from './types.js';

/**
 * - `ended`: the import finished, or ended without finishing (`report.state` says which).
 * - `timeout`: still running after the timeout; the message names the import id.
 * - `lost`: the service refused the status call (a 4xx, say 404): it does not know the import.
 * - `stopped`: the run was interrupted while waiting, or a poll was given up unsent (`givenUp`:
 *   429s that never ended, attempts that never reached the API); the import may go on at the service.
 */
export type WaitOutcome =
  | { readonly kind: 'ended'; readonly report: ImportStatusReport; readonly polls: number }
  | {
      readonly kind: 'timeout';
      readonly message: string;
      readonly last: ImportStatusReport | undefined;
      readonly polls: number;
    }
  | { readonly kind: 'lost'; readonly message: string; readonly polls: number }
  | { readonly kind: 'stopped'; readonly message: string; readonly polls: number; readonly givenUp?: true };

/** How the wait is paced and stopped, every default resolved (see `BulkClientOptions`). */
export interface ImportWait {
  readonly transport: Pick<Transport, 'send'>;
  readonly sleep: (ms: number, signal?: AbortSignal) => Promise<void>;
  readonly now: () => number;
  readonly signal: AbortSignal | undefined;
  /** Pauses between polls; the last one repeats. At least one. */
  readonly delays: readonly number[];
  readonly timeoutMs: number;
}

/** Polls `GET /import/status/?import_id=` until the import ends, the timeout passes, or the run stops. */
export async function waitForImport(wait: ImportWait, importId: string): Promise<WaitOutcome> {
  const { transport, sleep, now, signal, delays, timeoutMs } = wait;
  const started = now();
  const path = `import/status/?import_id=${encodeURIComponent(importId)}`;
  let last: ImportStatusReport | undefined;
  let polls = 0;
  for (let round = 0; ; round++) {
    const elapsed = now() - started;
    if (elapsed >= timeoutMs)
      return { kind: 'timeout', message: timeoutMessage(importId, timeoutMs, last), last, polls };
    try {
      const backoff = delays[Math.min(round, delays.length - 1)]!;
      await sleep(Math.min(pauseBeforePoll(backoff, elapsed, last), timeoutMs - elapsed), signal);
    } catch (error) {
      if (signal?.aborted) return { kind: 'stopped', message: `stopped while waiting for import ${importId}`, polls };
      throw error;
    }
    if (signal?.aborted) return { kind: 'stopped', message: `stopped while waiting for import ${importId}`, polls };
    polls++;
    const outcome = await transport.send({ method: 'GET', path, idempotent: true });
    if (outcome.kind === 'not_sent')
      return outcome.givenUp
        ? {
            kind: 'stopped',
            message: `stopped while waiting for import ${importId}: a status poll was given up (${outcome.message.replace(/^not sent: /, '')})`,
            polls,
            givenUp: true,
          }
        : { kind: 'stopped', message: `stopped while waiting for import ${importId}: ${outcome.message}`, polls };
    if (outcome.kind === 'ok') {
      const report = parseImportStatus(outcome.body, importId);
      // An answer that is not a status object is read as "not yet": the timeout bounds it.
      if (report !== undefined) {
        last = report;
        if (report.state !== 'running') return { kind: 'ended', report, polls };
      }
    } else if (outcome.status !== undefined && outcome.status < 500) {
      return {
        kind: 'lost',
        message: `import ${importId}: the status call was refused: ${outcome.message}`,
        polls,
      };
    }
    // A 5xx or a network failure given up by the transport: the import runs on; ask again later.
  }
}

function timeoutMessage(importId: string, timeoutMs: number, last: ImportStatusReport | undefined): string {
  const where =
    last === undefined
      ? 'no status read'
      : `last status "${last.status}"${last.succeeded !== undefined && last.totalCount !== undefined ? `, ${(last.succeeded ?? 0) + (last.failed ?? 0)} of ${last.totalCount} rows done` : ''}`;
  return `import ${importId} did not end within ${timeoutText(timeoutMs)} (${where}); its rows are unknown`;
}

/** `30 min`, `45 s`, `1 min 30 s`, `600 ms`: as given, never rounded to a minute it was not. */
function timeoutText(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)} ms`;
  const seconds = Math.round(ms / 1000);
  const minutes = Math.floor(seconds / 60);
  const rest = seconds - minutes * 60;
  return [minutes > 0 ? `${minutes} min` : '', rest > 0 ? `${rest} s` : ''].filter(Boolean).join(' ');
}
