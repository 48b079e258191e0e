import type { Argv } from 'yargs';
import { defineCommand, type CliIo, type OptionsOf } from './command.js';
import { commandApiKey, readBaseUrl } from './credentials.js';
import { EXIT } from './exit-codes.js';
import { VERSION } from './version.js';

function eventsOptions(y: Argv) {
  return y
    .positional('action', { choices: ['list'] as const, demandOption: true })
    .option('base-url', { type: 'string', describe: "The account's API root (or ENGAGE_BASE_URL)" })
    .option('api-key-file', { type: 'string', describe: 'File holding the API key (or ENGAGE_API_KEY)' })
    .option('json', { type: 'boolean', default: false, describe: 'One JSON object per line instead of a table' })
    .example('$0 events list', 'Print id and name of every event definition');
}

type EventsArgs = OptionsOf<typeof eventsOptions>;

/**
 * A name from the API as one line of plain text: control characters (an ANSI escape that would
 * recolour or clear the terminal, a CR or LF that would forge another line) are shown escaped.
 */
export function printable(value: unknown): string {
  return String(value).replace(/[\p{Cc}\u2028\u2029]/gu, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/** `events list`: the account's event definitions (GET /events/, paginated), every page, to check names before an import. */
export const eventsCommand = defineCommand({
  command: 'events <action>',
  describe: "List the account's event definitions (GET /events/, every page)",
  builder: eventsOptions,
  run: async (args: EventsArgs, io: CliIo) => {
    // Loaded here, not at start-up: the other commands should not pay for undici.
    const { createTransport, listAll, resolveBaseUrl } = await import('../transport/index.js');
    const transport = createTransport({
      baseUrl: resolveBaseUrl(readBaseUrl(io.env, args['base-url'])),
      apiKey: commandApiKey(io, args['api-key-file']),
      userAgent: `engage-import/${VERSION}`,
      signal: io.signal,
    });
    try {
      let count = 0;
      let odd = 0;
      for await (const item of listAll(transport, 'events/')) {
        if (item === null || typeof item !== 'object' || Array.isArray(item)) {
          // Not an event definition (a `null` in a page): said once at the end, not a crash.
          odd++;
          continue;
        }
        const event = item as { id?: unknown; name?: unknown };
        io.stdout.write(
          args.json ? `${JSON.stringify(event)}\n` : `${printable(event.id)}\t${printable(event.name)}\n`,
        );
        count++;
      }
      io.stderr.write(`${count} event definition${count === 1 ? '' : 's'}\n`);
      if (odd > 0)
        io.stderr.write(
          `engage-import: ${odd} item${odd === 1 ? '' : 's'} of the list ${odd === 1 ? 'was' : 'were'} not an event definition (null or not an object) and ${odd === 1 ? 'was' : 'were'} left out\n`,
        );
      return EXIT.OK;
    } finally {
      await transport.close();
    }
  },
});
