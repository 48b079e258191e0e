import type { Argv } from 'yargs';
import { defineCommand, type CliIo, type OptionsOf } from './command.js';
import { withJobOptions } from './common-options.js';
import { runDryRunCommand } from './dry-run-command.js';
import { withLiveOptions, withSyncModeOptions } from './live-options.js';

function importOptions(y: Argv) {
  return withSyncModeOptions(
    withLiveOptions(withJobOptions(y))
      .option('dry-run', { type: 'boolean', default: false, describe: 'Validate and report; send nothing' })
      .option('payloads', {
        type: 'string',
        describe: 'With --dry-run: write the exact request each valid row would send (NDJSON)',
      })
      .option('resume', {
        type: 'boolean',
        default: false,
        describe: 'Continue the last unfinished run of this job (see `resume`)',
      }),
  )
    .example(
      'ENGAGE_API_KEY=… $0 import samples/job.yaml --base-url https://acme.example.com/api/public/',
      'Import the bundled samples',
    )
    .example(
      '$0 import samples/job.yaml --dry-run --payloads out/payloads.ndjson',
      'Review what a migration would send',
    )
    .example('$0 import nightly.yaml --incremental', 'A nightly job: send only what changed since the last run');
}

type ImportArgs = OptionsOf<typeof importOptions>;

export const importCommand = defineCommand({
  command: 'import <job>',
  describe:
    "Send every valid row of a job to the API in dependency order, at the API's rate (--dry-run: validate only)",
  builder: importOptions,
  run: async (args: ImportArgs, io: CliIo) => {
    if (args['dry-run']) {
      // Options of the live run's end that a dry run has no use for: said, not silently dropped.
      const unused = (['notify-url', 'max-failed'] as const).filter((o) => args[o] !== undefined);
      if (unused.length > 0)
        io.stderr.write(
          `engage-import: ${unused.map((o) => `--${o}`).join(' and ')} ${unused.length === 1 ? 'applies' : 'apply'} to a live run only: a dry run sends nothing, posts no alert and exits by its rows\n`,
        );
      return runDryRunCommand(args, io);
    }
    // Loaded when a live run starts: `validate` and `--help` then never load undici and SQLite.
    const { runLive } = await import('./live-command.js');
    return runLive(args.resume ? { kind: 'resume', job: args.job } : { kind: 'new', job: args.job }, args, io);
  },
});
