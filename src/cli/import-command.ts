import type { CliCommand } from './command.js';
import { withJobOptions, type JobArgs } from './common-options.js';
import { runDryRunCommand } from './dry-run-command.js';
import { withLiveOptions, type LiveArgs } from './live-options.js';

type ImportArgs = JobArgs & LiveArgs & { 'dry-run': boolean; resume: boolean; payloads?: string | undefined };

export const importCommand: CliCommand<ImportArgs> = {
  command: 'import <job>',
  describe: 'Send every valid row of a job to the API in dependency order, at the API\'s rate (--dry-run: validate only)',
  builder: (y) =>
    withLiveOptions(withJobOptions(y))
      .option('dry-run', { type: 'boolean', default: false, describe: 'Validate and report; send nothing' })
      .option('payloads', { type: 'string', describe: 'With --dry-run: write the exact request each valid row would send (NDJSON)' })
      .option('resume', { type: 'boolean', default: false, describe: 'Continue the last unfinished run of this job (see `resume`)' })
      .example('ENGAGE_API_KEY=… $0 import samples/job.yaml --base-url https://acme.example.com/api/public/', 'Import the bundled samples')
      .example('$0 import samples/job.yaml --dry-run --payloads out/payloads.ndjson', 'Review what a migration would send') as never,
  run: async (args, io) => {
    if (args['dry-run']) return runDryRunCommand(args, io);
    // Loaded when a live run starts: `validate` and `--help` then never load undici and SQLite.
    const { runLive } = await import('./live-command.js');
    return runLive(args.resume ? { kind: 'resume', job: args.job } : { kind: 'new', job: args.job }, args, io);
  },
};
