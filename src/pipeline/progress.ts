import cliProgress from 'cli-progress';
import { createLogger } from '../log/create-logger.js';
import type { Logger } from '../log/logger.js';
import { NOT_OK_STATUSES, type RowStatus } from '../report/report-line.js';
import { formatDuration } from '../report/summary.js';

/** Progress of one stage (one input file): rows done of its total, by outcome. */
export interface StageProgress {
  tick(status: RowStatus): void;
  /** `stopped`: the run stopped sending before the stage's end (its last rows are `not_sent`). */
  finish(stopped?: boolean): void;
}

export interface Progress {
  stage(label: string, total: number): StageProgress;
  stop(): void;
}

export interface ProgressOptions {
  readonly stream: NodeJS.WritableStream & { isTTY?: boolean };
  /** Live bars on a terminal; one log line every `logEveryMs` otherwise (cron). */
  readonly tty: boolean;
  /** Default 10 s. */
  readonly logEveryMs?: number;
  readonly now?: () => number;
  /** How the periodic log line is scheduled; tests pass a fake. Default: an unref'd setInterval. */
  readonly every?: (ms: number, fn: () => void) => () => void;
  /** Where the log lines go without a terminal (`--log-format`). Default: text on `stream`. */
  readonly log?: Logger | undefined;
}

const number = new Intl.NumberFormat('en-US');

interface Counts {
  done: number;
  ok: number;
  failed: number;
  /** Rows an incremental run had no need to send, by status (the summary's words): success too. */
  unchanged: number;
  already_sent: number;
  superseded: number;
  started: number;
}

const fresh = (started: number): Counts => ({
  done: 0,
  ok: 0,
  failed: 0,
  unchanged: 0,
  already_sent: 0,
  superseded: 0,
  started,
});

function line(label: string, total: number, c: Counts, now: number): string {
  const seconds = Math.max((now - c.started) / 1000, 0.001);
  const rate = c.done / seconds;
  const eta = rate > 0 ? formatDuration((total - c.done) / rate) : '?';
  // Without the rows not needing a send, a stage of an unchanged night would read "ok 0, not ok 0".
  const unsent = UNSENT.filter((status) => c[status] > 0)
    .map((status) => `, ${status} ${number.format(c[status])}`)
    .join('');
  return `[${label}] ${number.format(c.done)}/${number.format(total)} rows, ok ${number.format(c.ok)}${unsent}, not ok ${number.format(c.failed)}, ${rate.toFixed(1)} rows/s, ETA ${eta}`;
}

/** The same figures as `line`, for a log system. */
function figures(label: string, total: number, c: Counts, now: number) {
  const seconds = Math.max((now - c.started) / 1000, 0.001);
  const rate = c.done / seconds;
  return {
    stage: label,
    done: c.done,
    total,
    ok: c.ok,
    unchanged: c.unchanged,
    already_sent: c.already_sent,
    superseded: c.superseded,
    not_ok: c.failed,
    rows_per_s: Math.round(rate * 10) / 10,
    eta_s: rate > 0 ? Math.ceil((total - c.done) / rate) : null,
  };
}

const NOT_OK: ReadonlySet<RowStatus> = new Set(NOT_OK_STATUSES);
const UNSENT = ['unchanged', 'already_sent', 'superseded'] as const;
const isUnsent = (status: RowStatus): status is (typeof UNSENT)[number] =>
  (UNSENT as readonly RowStatus[]).includes(status);

/** A terminal gets live bars (cli-progress); a log file gets a line every 10 s and at stage ends. */
export function createProgress(options: ProgressOptions): Progress {
  const now = options.now ?? Date.now;
  return options.tty ? liveBars(options, now) : logLines(options, now);
}

/** One row more in the counts, by its outcome. */
function count(c: Counts, status: RowStatus): void {
  c.done++;
  if (status === 'ok' || status === 'valid') c.ok++;
  else if (NOT_OK.has(status)) c.failed++;
  else if (isUnsent(status)) c[status]++;
}

/** On a terminal: one live bar a stage (cli-progress). */
function liveBars(options: ProgressOptions, now: () => number): Progress {
  const bars = new cliProgress.MultiBar(
    {
      stream: options.stream as NodeJS.WriteStream,
      format: ' {stage} [{bar}] {value}/{total} | ok {ok} | not ok {failed} | {speed} rows/s | ETA {eta_formatted}',
      hideCursor: true,
      clearOnComplete: false,
      etaBuffer: 50,
    },
    cliProgress.Presets.shades_classic,
  );
  return {
    stage(label, total) {
      const c = fresh(now());
      const bar = bars.create(total, 0, { stage: label.padEnd(24), ok: 0, failed: 0, speed: '0.0' });
      return {
        tick(status) {
          count(c, status);
          bar.update(c.done, {
            ok: c.ok,
            failed: c.failed,
            speed: (c.done / Math.max((now() - c.started) / 1000, 0.001)).toFixed(1),
          });
        },
        finish() {
          bar.update(c.done);
          bar.stop();
        },
      };
    },
    stop: () => bars.stop(),
  };
}

/** Without a terminal (cron): a log line at each stage's start, every `logEveryMs`, and at its end. */
function logLines(options: ProgressOptions, now: () => number): Progress {
  const every =
    options.every ??
    ((ms, fn) => {
      const t = setInterval(fn, ms);
      t.unref();
      return () => clearInterval(t);
    });
  const log = options.log ?? createLogger('text', { stream: options.stream });
  return {
    stage(label, total) {
      const c = fresh(now());
      log.log('info', 'stage_start', { stage: label, total });
      const cancel = every(options.logEveryMs ?? 10_000, () =>
        log.log('info', 'progress', figures(label, total, c, now()), line(label, total, c, now())),
      );
      return {
        tick: (status) => count(c, status),
        finish(stopped = false) {
          cancel();
          // A stage the run stopped in is not "done": a reader of the log would take it for complete.
          log.log(
            'info',
            'stage_end',
            { ...figures(label, total, c, now()), stopped },
            `${line(label, total, c, now())} (${stopped ? 'stopped early: rows not sent are not_sent in the report, rows whose answer it did not wait for unknown; resume goes on' : 'done'})`,
          );
        },
      };
    },
    stop: () => undefined,
  };
}
