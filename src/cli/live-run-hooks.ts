import { basename } from 'node:path';
import { loggerOf } from '../log/cli-logger.js';
import type { Logger } from '../log/logger.js';
import { formatMaxFailed, withinMaxFailed } from '../notify/max-failed.js';
import { notificationBody, shouldNotify } from '../notify/notification.js';
import { parseNotifyUrl, shownUrl } from '../notify/notify-url.js';
import { sendNotification, type SendOptions } from '../notify/send-notification.js';
import type { LiveRunResult } from '../pipeline/live-import.js';
import { ROW_STATUSES, rowsNotOk } from '../report/report-line.js';
import type { TransportEvent } from '../transport/index.js';
import type { AlertArgs } from './alert-options.js';
import type { CliIo } from './command.js';
import { EXIT, exitCodeOf } from './exit-codes.js';
import { EngageError } from '../errors.js';
import { redact } from '../text/redact.js';
import { secretsOf } from './secrets-of.js';

/** The first segment of an API path: enough to say which endpoint, never a customer's id. */
const endpointOf = (path: string) => path.replace(/^\/+/, '').split('/')[0] ?? '';

/** The words of the API's paths; any other segment is an id (a customer's, often an email). */
const ROUTE_WORDS = new Set([
  'users',
  'users-by-id',
  'update_or_create',
  'events',
  'products',
  'products-by-id',
  'product_event',
  'product-event-creation',
  'deals',
  'webpush-campaign',
  'import',
  'status',
]);

/** An API path as a log line may show it: its route, each id replaced by `…`, no query. */
export function routeOf(path: string): string {
  const segments = path.replace(/^\/+/, '').split('?')[0]!.split('/');
  return `/${segments.map((s) => (s === '' || ROUTE_WORDS.has(s) ? s : '…')).join('/')}`;
}

/**
 * What a live run tells the outside world besides its report: the structured log (run start,
 * 429 pauses, exhausted retry budgets, run end), `--max-failed`, and the notification. Kept
 * apart from the run itself so that none of it can change what is sent, and a notification
 * that fails is a warning, never another exit code.
 */
export function liveRunHooks(
  args: AlertArgs & { quiet: boolean; 'api-key-file'?: string | undefined },
  io: CliIo,
  apiKey: string,
  options: SendOptions & { now?: () => number } = {},
) {
  const log: Logger = loggerOf(io.stderr);
  log.redact(apiKey);
  // Read (and refused if malformed) before anything is sent.
  const urlText = args['notify-url'] ?? io.env['ENGAGE_NOTIFY_URL'];
  const notifyUrl =
    urlText === undefined || urlText === ''
      ? undefined
      : parseNotifyUrl(urlText, args['notify-url'] !== undefined ? '--notify-url' : 'ENGAGE_NOTIFY_URL');
  if (urlText) log.redact(urlText);
  const now = options.now ?? Date.now;
  /** POSTs `body` to the notification URL, if any; a failure is a warning, never another exit code. */
  const notify = async (body: Record<string, unknown>) => {
    if (notifyUrl === undefined) return;
    // A signal that comes while the alert waits for its webhook ends the wait: the run is over.
    // One that came before (the run was interrupted) does not: that alert is the one to send.
    const stop = new AbortController();
    const onSignal = () => stop.abort();
    if (!io.signal.aborted) io.signal.addEventListener('abort', onSignal, { once: true });
    const delivery = await sendNotification(notifyUrl, body, { ...options, stop: stop.signal }).finally(() =>
      io.signal.removeEventListener('abort', onSignal),
    );
    if (delivery.ok) log.log('info', 'notify_sent', { host: shownUrl(notifyUrl), status: delivery.status });
    else
      log.log(
        'warn',
        'notify_failed',
        { reason: delivery.reason },
        `engage-import: warning: the notification was not delivered: ${delivery.reason}`,
      );
  };
  const started = now();
  let job = '';
  return {
    log,
    /** The run is about to send: its job and run folder. */
    start(jobFile: string, runDir: string, files: number) {
      job = basename(jobFile);
      log.log('info', 'run_start', {
        job,
        run_dir: runDir,
        files,
        notify: notifyUrl ? shownUrl(notifyUrl) : undefined,
      });
    },
    /** In json, 429 pauses and given-up requests are events; returns false for the text format, which prints its own lines. */
    onTransportEvent(event: TransportEvent): boolean {
      if (log.format !== 'json') return false;
      if (event.type === 'throttled')
        log.log('warn', 'throttled', {
          method: event.method,
          endpoint: endpointOf(event.path),
          wait_ms: event.waitMs,
          source: event.source,
          count: event.count,
        });
      if (event.type === 'gave_up')
        log.log('warn', 'gave_up', { method: event.method, endpoint: endpointOf(event.path), reason: event.reason });
      return true;
    },
    /**
     * The run's end: `--max-failed` may turn exit 1 into 0, the end is logged, the notification
     * sent. Returns the exit code.
     */
    async finish(result: LiveRunResult, exitCode: number): Promise<number> {
      const t = result.totals;
      const rows = ROW_STATUSES.reduce((n, s) => n + t[s], 0);
      // Rows an incremental run did not need to send (unchanged, already sent, superseded) are not failures.
      const bad = rowsNotOk(t);
      let code = exitCode;
      let outcome =
        code === EXIT.OK
          ? 'ok'
          : code === EXIT.ROWS_NOT_OK
            ? 'rows not ok'
            : result.interrupted
              ? 'interrupted'
              : 'aborted';
      const limit = args['max-failed'];
      if (code === EXIT.ROWS_NOT_OK && limit !== undefined && withinMaxFailed(limit, bad, rows)) {
        code = EXIT.OK;
        outcome = `ok: ${bad} row${bad === 1 ? '' : 's'} not ok, within --max-failed ${formatMaxFailed(limit)}`;
        if (!args.quiet)
          log.log(
            'info',
            'message',
            { text: outcome },
            `Exit 0: ${bad} row${bad === 1 ? '' : 's'} not ok, within --max-failed ${formatMaxFailed(limit)}`,
          );
      }
      const durationMs = now() - started;
      log.log(code === EXIT.OK ? 'info' : 'error', 'run_end', {
        job,
        outcome,
        exit_code: code,
        rows,
        totals: { ...t },
        duration_ms: durationMs,
        report: result.report,
      });
      if (shouldNotify(args['notify-on'], code))
        await notify(notificationBody(result, { job, exitCode: code, outcome, durationMs }));
      return code;
    },
    /**
     * A run ended by an error instead of a result: `refused` before it began sending (an input or
     * output refused by its checks, an unfinished run, a state of another account), `failed`
     * after. The end is logged and, as for any exit code but 0, the notification sent: a cron job
     * hears of a night that sent nothing.
     */
    async refused(error: unknown, jobFile: string | undefined, began: boolean): Promise<void> {
      const code = exitCodeOf(error);
      // The key as this run read it, and as the environment or a key file holds it: a run refused
      // because it could not read its key has none of its own to hide. A key file the run has read
      // is not read again (a pipe would have nothing left to give).
      const message = redact(error instanceof EngageError ? error.message : 'internal error', [
        apiKey,
        ...secretsOf(io, args['api-key-file'], apiKey === '' ? [] : [apiKey]),
      ]);
      const name = job || (jobFile === undefined ? '' : basename(jobFile));
      const outcome = began ? 'failed' : 'refused';
      const durationMs = now() - started;
      log.log('error', 'run_end', { job: name, outcome, exit_code: code, message, duration_ms: durationMs });
      if (shouldNotify(args['notify-on'], code))
        await notify({
          text: `engage-import${name === '' ? '' : ` ${name}`}: ${outcome} (exit ${code}): ${message}`,
          job: name,
          outcome,
          exit_code: code,
          duration_ms: durationMs,
          message,
        });
    },
  };
}

/** What a live run tells the outside world (`liveRunHooks`). */
export type LiveRunHooks = ReturnType<typeof liveRunHooks>;
