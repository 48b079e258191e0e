import cliProgress from 'cli-progress';
import type { RowStatus } from '../report/report-line.js';
import { formatDuration } from '../report/summary.js';

/** Progress of one stage (one input file): rows done of its total, by outcome. */
export interface StageProgress {
  tick(status: RowStatus): void;
  finish(): void;
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
}

const number = new Intl.NumberFormat('en-US');

interface Counts { done: number; ok: number; failed: number; started: number }

function line(label: string, total: number, c: Counts, now: number): string {
  const seconds = Math.max((now - c.started) / 1000, 0.001);
  const rate = c.done / seconds;
  const eta = rate > 0 ? formatDuration((total - c.done) / rate) : '?';
  return `[${label}] ${number.format(c.done)}/${number.format(total)} rows, ok ${number.format(c.ok)}, not ok ${number.format(c.failed)}, ${rate.toFixed(1)} rows/s, ETA ${eta}`;
}

const NOT_OK: ReadonlySet<RowStatus> = new Set(['failed', 'invalid', 'unknown', 'skipped', 'not_sent']);

/** A terminal gets live bars (cli-progress); a log file gets a line every 10 s and at stage ends. */
export function createProgress(options: ProgressOptions): Progress {
  const now = options.now ?? Date.now;
  if (options.tty) {
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
        const c: Counts = { done: 0, ok: 0, failed: 0, started: now() };
        const bar = bars.create(total, 0, { stage: label.padEnd(24), ok: 0, failed: 0, speed: '0.0' });
        return {
          tick(status) {
            c.done++;
            if (status === 'ok' || status === 'valid') c.ok++;
            else if (NOT_OK.has(status)) c.failed++;
            bar.update(c.done, { ok: c.ok, failed: c.failed, speed: (c.done / Math.max((now() - c.started) / 1000, 0.001)).toFixed(1) });
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
  const every = options.every ?? ((ms, fn) => {
    const t = setInterval(fn, ms);
    t.unref();
    return () => clearInterval(t);
  });
  return {
    stage(label, total) {
      const c: Counts = { done: 0, ok: 0, failed: 0, started: now() };
      const cancel = every(options.logEveryMs ?? 10_000, () => options.stream.write(`${line(label, total, c, now())}\n`));
      return {
        tick(status) {
          c.done++;
          if (status === 'ok' || status === 'valid') c.ok++;
          else if (NOT_OK.has(status)) c.failed++;
        },
        finish() {
          cancel();
          options.stream.write(`${line(label, total, c, now())} (done)\n`);
        },
      };
    },
    stop: () => undefined,
  };
}
