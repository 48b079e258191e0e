import { createLogger } from './create-logger.js';
import { jsonLinesStream } from './json-lines-stream.js';
import { LOG_FORMATS, type Logger, type LogFormat } from './logger.js';

type Stderr = NodeJS.WritableStream & { isTTY?: boolean; columns?: number };
const LOGGER = Symbol('engage-import logger');
type WithLogger = Stderr & { [LOGGER]?: Logger };

/**
 * The command's io with stderr set up for the log format: unchanged for text; for json, a
 * stream that turns every line of prose into a `message` event, carrying the json logger that
 * commands use for their structured events (`loggerOf`).
 */
export function withLogFormat<
  T extends { readonly stderr: Stderr; readonly env: Readonly<Record<string, string | undefined>> },
>(io: T, format: LogFormat, now?: () => number): T {
  // Already set up (bin.ts does it to log its signal notices the same way): keep the one logger.
  if (format === 'text' || (io.stderr as WithLogger)[LOGGER] !== undefined) return io;
  const secrets = [io.env['ENGAGE_API_KEY'], io.env['ENGAGE_NOTIFY_URL']].filter(
    (s): s is string => typeof s === 'string',
  );
  const logger = createLogger('json', { stream: io.stderr, secrets, ...(now ? { now } : {}) });
  const stderr: WithLogger = jsonLinesStream(logger, io.stderr.columns);
  stderr[LOGGER] = logger;
  return { ...io, stderr };
}

/** The logger of a command's stderr: the json one set up by `withLogFormat`, else text on that stream. */
export function loggerOf(stderr: Stderr): Logger {
  return (stderr as WithLogger)[LOGGER] ?? createLogger('text', { stream: stderr });
}

export { LOG_FORMATS };
