/**
 * The run's log: what happened, for a person (text) or a log system (json, one object a line).
 * The bottom layer: it knows nothing of rows, HTTP or files, only events and their figures.
 */
export type LogLevel = 'info' | 'warn' | 'error';

/**
 * Events a run logs. Rows appear only as file, line and key; requests only as method and the
 * endpoint's first path segment (a path can hold a customer's id); never the API key.
 */
export type LogEvent =
  | 'run_start'
  | 'stage_start'
  | 'progress'
  | 'stage_end'
  | 'throttled'
  | 'gave_up'
  | 'notify_sent'
  | 'notify_failed'
  | 'run_end'
  /** The summary of a command (validate, import), as `--json` writes it. */
  | 'summary'
  /** A line of the tool's ordinary prose (summary, notices, errors), carried as `text` in json. */
  | 'message';

type Figure =
  | string
  | number
  | boolean
  | null
  | undefined
  | readonly string[]
  | Readonly<Record<string, unknown>>
  | readonly unknown[];
export type Figures = Readonly<Record<string, Figure>>;

export interface Logger {
  readonly format: LogFormat;
  /**
   * One event. `text` is what the text format prints for it (nothing when absent: a person
   * reading the terminal does not need every stage start); the json format always writes it.
   */
  log(level: LogLevel, event: LogEvent, figures: Figures, text?: string): void;
  /** A value learnt later (the key read from --api-key-file) that must never be written. */
  redact(secret: string): void;
}

export const LOG_FORMATS = ['text', 'json'] as const;
export type LogFormat = (typeof LOG_FORMATS)[number];
