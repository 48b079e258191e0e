import { redact as redacted } from '../text/redact.js';
import type { Figures, Logger, LogEvent, LogFormat, LogLevel } from './logger.js';

export interface LoggerOptions {
  readonly stream: NodeJS.WritableStream;
  /** Values never to be written (the API key, the notify URL): replaced by `[redacted]` if they ever appear. */
  readonly secrets?: readonly string[] | undefined;
  /** Default Date.now. */
  readonly now?: () => number;
}

/**
 * `text` prints the prose the tool has always printed; `json` writes one object a line with
 * `time` (ISO 8601 UTC), `level`, `event` and the figures. Secrets are scrubbed from every line
 * this logger writes, as a last guard: the callers never pass them, and a canary test holds that
 * (as it does for the prose commands write to stderr themselves, which passes no logger).
 */
export function createLogger(format: LogFormat, options: LoggerOptions): Logger {
  const now = options.now ?? Date.now;
  // Very short values would scrub ordinary words; a real key or URL is never that short.
  const secrets: string[] = [];
  const redact = (secret: string) => {
    if (secret.length >= 8 && !secrets.includes(secret)) secrets.push(secret);
  };
  for (const s of options.secrets ?? []) redact(s);
  const scrub = (line: string) => redacted(line, secrets);
  if (format === 'text') {
    return {
      format,
      redact,
      log(_level: LogLevel, _event: LogEvent, _figures: Figures, text?: string) {
        if (text !== undefined) options.stream.write(scrub(`${text}\n`));
      },
    };
  }
  return {
    format,
    redact,
    log(level, event, figures, text) {
      const entry: Record<string, unknown> = { time: new Date(now()).toISOString(), level, event };
      for (const [k, v] of Object.entries(figures)) if (v !== undefined) entry[k] = v;
      if (text !== undefined && entry['text'] === undefined) entry['text'] = text;
      options.stream.write(`${scrub(JSON.stringify(entry))}\n`);
    },
  };
}
