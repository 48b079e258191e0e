import type { CliCommand } from './command.js';
import { withJobOptions, type JobArgs } from './common-options.js';
import { runDryRunCommand } from './dry-run-command.js';
import { withLiveOptions, type LiveArgs } from './live-options.js';

type ImportArgs = JobArgs & LiveArgs & { 'dry-run': boolean; resume: boolean; payloads?: string | undefined };

export const importCommand: CliCommand<ImportArgs> = {
  command: 'import <job>',
  describe:
    "Send every valid row of a job to the API in dependency order, at the API's rate (--dry-run: validate only)",
  builder: (y) =>
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
      })
      .option('incremental', {
        type: 'boolean',
        describe:
          "Send only rows the API has not accepted yet: unchanged entities and events already sent are reported, not sent (default: the job file's sync: setting; with --dry-run: the preview)",
      })
      .option('full-refresh', {
        type: 'boolean',
        describe: 'Send every row again, unchanged ones and events already sent included, and refresh the sync state',
      })
      .conflicts('incremental', 'full-refresh')
      .example(
        'ENGAGE_API_KEY=… $0 import samples/job.yaml --base-url https://acme.example.com/api/public/',
        'Import the bundled samples',
      )
      .example(
        '$0 import samples/job.yaml --dry-run --payloads out/payloads.ndjson',
        'Review what a migration would send',
      )
      .example(
        '$0 import nightly.yaml --incremental',
        'A nightly job: send only what changed since the last run',
      ) as never,
  run: async (args, io) => {
    if (args['dry-run']) return runDryRunCommand(args, io);
    // Loaded when a live run starts: `validate` and `--help` then never load undici and SQLite.
    const { runLive } = await import('./live-command.js');
    return runLive(args.resume ? { kind: 'resume', job: args.job } : { kind: 'new', job: args.job }, args, io);
  },
};
