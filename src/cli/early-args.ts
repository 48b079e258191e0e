import yargs from 'yargs';
import type { LogFormat } from '../log/logger.js';

/**
 * What the process needs from its command line before the command's own parse: the log format
 * (so that even a usage error is a json line), `--json` (so that a refused command still prints
 * its object), and for the signal handling whether this is a live run, a resume, and its request
 * timeout. Read by yargs too, leniently (no strictness, no help, no failure), so that every
 * spelling the real parse accepts (`--logFormat json`, `--log-format=json`, an option before the
 * command, `--resume=true`) means the same here.
 */
export interface EarlyArgs {
  /** The first positional word: the command (`import`, `resume`, …). */
  readonly command: string | undefined;
  /** Anything but `json` is text (the real parse then refuses an unknown value). */
  readonly logFormat: LogFormat;
  readonly json: boolean;
  /** `import --resume`. */
  readonly resume: boolean;
  readonly dryRun: boolean;
  /** `--request-timeout` in seconds as given (undefined when not given). */
  readonly requestTimeout: string | undefined;
  /** `--api-key-file` as given: a message must not repeat the key it holds. */
  readonly apiKeyFile: string | undefined;
}

export function earlyArgs(argv: readonly string[]): EarlyArgs {
  let parsed: Record<string, unknown> = {};
  try {
    parsed = yargs([...argv])
      .help(false)
      .version(false)
      .exitProcess(false)
      .fail(false)
      .parserConfiguration({ 'duplicate-arguments-array': false })
      .option('log-format', { type: 'string' })
      .option('json', { type: 'boolean' })
      .option('resume', { type: 'boolean' })
      .option('dry-run', { type: 'boolean' })
      .option('request-timeout', { type: 'string' })
      .option('api-key-file', { type: 'string' })
      .parseSync();
  } catch {
    // The command's own parse says what is wrong; here, nothing was asked for.
  }
  const first = (parsed['_'] as unknown[] | undefined)?.[0];
  return {
    command: first === undefined ? undefined : String(first),
    logFormat: parsed['logFormat'] === 'json' ? 'json' : 'text',
    json: parsed['json'] === true,
    resume: parsed['resume'] === true,
    dryRun: parsed['dryRun'] === true,
    requestTimeout: typeof parsed['requestTimeout'] === 'string' ? parsed['requestTimeout'] : undefined,
    apiKeyFile: typeof parsed['apiKeyFile'] === 'string' ? parsed['apiKeyFile'] : undefined,
  };
}
