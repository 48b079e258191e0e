import yargs from 'yargs';
import { EngageError } from '../errors.js';
import { LOG_FORMATS, withLogFormat } from '../log/cli-logger.js';
import { earlyArgs } from './early-args.js';
import { secretsOf } from './secrets-of.js';
import { withoutUrls } from './mask-urls.js';
import { redact } from '../text/redact.js';
import type { CliCommand, CliIo } from './command.js';
import { EXIT, exitCodeOf } from './exit-codes.js';
import { eventsCommand } from './events-command.js';
import { importCommand } from './import-command.js';
import { initCommand } from './init-command.js';
import { resumeCommand } from './resume-command.js';
import { sandboxCommand } from './sandbox-command.js';
import { stateCommand } from './state-command.js';
import { validateCommand } from './validate-command.js';
import { VERSION } from './version.js';

const COMMANDS: readonly CliCommand[] = [
  validateCommand,
  importCommand,
  resumeCommand,
  eventsCommand,
  sandboxCommand,
  initCommand,
  stateCommand,
];

/**
 * The whole command line, in-process: parses `argv` (without node and the script), runs one
 * command, returns its exit code. Nothing else in the tool knows about argv.
 */
export async function main(argv: readonly string[], cliIo: CliIo): Promise<number> {
  // --log-format json: every line on stderr, even a usage error, is one json object.
  const early = earlyArgs(argv);
  // The key a command reads, so that a refusal below hides it whatever the key file is.
  const keys: string[] = [];
  const io = { ...withLogFormat(cliIo, early.logFormat), keyRead: (key: string) => void keys.push(key) };
  let exitCode: number | undefined;
  let parser = yargs([...argv])
    .scriptName('engage-import')
    .usage('$0 <command> [options]\n\nLoad CSV exports into the engagement platform through its public REST API.')
    .version(VERSION)
    .help()
    .alias('h', 'help')
    .demandCommand(1, 'Name a command: validate, import, resume, sandbox or events')
    .option('log-format', {
      choices: LOG_FORMATS,
      default: 'text',
      global: true,
      describe: 'stderr as prose (text) or one json object a line (json: time, level, event, figures), for log systems',
    })
    .recommendCommands()
    .exitProcess(false)
    .showHelpOnFail(false)
    .wrap(Math.min(110, io.stderr.columns ?? 100))
    .epilogue(
      'Exit codes: 0 all rows ok/valid, 1 some rows invalid, failed, skipped, unknown or not_sent, 2 usage or configuration error (nothing sent), 3 stopped (401, the API unreachable or answering wrongly, a request given up unsent after 50 × 429 or attempts that never reached the API, a 429 pause longer than --max-pause, the run ledger failing; resume continues), 130/143 interrupted (resume continues).\nThe API key is read from ENGAGE_API_KEY or --api-key-file, never from the command line.',
    );
  for (const c of COMMANDS) {
    parser = c.register(parser, async (args, run) => {
      refuseRepeatedOptions(args, argv);
      exitCode = await run(io);
    });
  }
  // A repeated option (`--report a --report b`) arrives as an array, which no command expects:
  // it is refused by name below, and the number checks must not see the array first.
  parser = parser.strict().parserConfiguration({ 'duplicate-arguments-array': true });
  let output = '';
  parser = parser.fail((message, error) => {
    // yargs reports its own parse problems with a message; errors thrown by handlers come as
    // `error`. Throwing is what stops yargs from running the handler after a parse problem.
    // A `coerce` check that refused a value (src/cli/number-options.ts) comes as a YError: a usage error too.
    if (error && error.name !== 'YError' && !(error instanceof UsageError)) throw error;
    throw new UsageError(withoutUrls(error?.message ?? message));
  });
  try {
    await parser.parseAsync([...argv], {}, (_err, _args, text) => {
      output = text;
    });
  } catch (error) {
    // The key (or the webhook URL) pasted where an argument goes is not repeated back: as the
    // environment holds it, as the run read it, or as its file holds it (read only when the run
    // did not: a pipe it read is empty now).
    const secrets = secretsOf(io, early.apiKeyFile, keys);
    const code = reportError(error, io, secrets);
    // --json: a batch job reads stdout; a refused command (nothing sent) still gives it an object.
    if (early.json) io.stdout.write(`${JSON.stringify(refusal(error, code, secrets), null, 2)}\n`);
    return code;
  }
  if (output) io.stdout.write(`${output}\n`);
  return exitCode ?? EXIT.OK;
}

/** A command line yargs could not parse: the user gets the problem and where to read more. */
class UsageError extends Error {}

/**
 * `--report a --report b`: which one was meant cannot be guessed, and passing the array on would
 * fail deep inside the run. Every option of every command takes one value.
 */
function refuseRepeatedOptions(args: Readonly<Record<string, unknown>>, argv: readonly string[]): void {
  for (const [name, value] of Object.entries(args)) {
    if (name === '_' || name === '$0' || !Array.isArray(value)) continue;
    // yargs keeps each option under both spellings (`notify-url`, `notifyUrl`); either may come first.
    const dashed = name.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);
    const option = name.length === 1 ? `-${name}` : `--${dashed}`;
    const spellings = [option, `--${name}`];
    if (!argv.some((a) => spellings.some((s) => a === s || a.startsWith(`${s}=`)))) continue;
    // A URL option's values may hold a secret however they are written (with or without a scheme).
    const values = URL_OPTIONS.has(dashed) ? '' : ` (${value.map((v) => JSON.stringify(String(v))).join(', ')})`;
    throw new UsageError(`${option} was given ${value.length} times${values}: give it once`);
  }
}

/** What `--json` prints when the command ended by an error: its exit code, and the error's code and message. */
function refusal(error: unknown, exitCode: number, secrets: readonly (string | undefined)[]) {
  const code = error instanceof UsageError ? 'USAGE' : error instanceof EngageError ? error.code : 'INTERNAL';
  const message =
    error instanceof Error && code !== 'INTERNAL' ? redact(error.message, secrets) : 'internal error (see stderr)';
  // Exit 2 is a usage or configuration error, raised before anything is sent.
  return { outcome: exitCode === EXIT.USAGE ? 'refused' : 'failed', exit_code: exitCode, error: { code, message } };
}

/**
 * Options whose values a message never repeats: a webhook URL holds its secret in the path or
 * query, a base URL may carry a password, and `--api-key-file` may be given the key itself.
 */
const URL_OPTIONS: ReadonlySet<string> = new Set(['notify-url', 'base-url', 'api-key-file']);

function reportError(error: unknown, io: CliIo, secrets: readonly (string | undefined)[]): number {
  if (error instanceof UsageError) {
    io.stderr.write(
      `engage-import: ${redact(error.message, secrets)}\nRun 'engage-import --help' for the commands and options.\n`,
    );
    return EXIT.USAGE;
  }
  if (error instanceof EngageError) {
    io.stderr.write(`engage-import: ${redact(error.message, secrets)}\n`);
    return exitCodeOf(error);
  }
  io.stderr.write(
    `engage-import: internal error (please report it): ${redact(error instanceof Error ? (error.stack ?? error.message) : String(error), secrets)}\n`,
  );
  return EXIT.INTERNAL;
}
