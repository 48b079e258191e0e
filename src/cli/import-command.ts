import type { CliCommand } from './command.js';
import { withJobOptions, type JobArgs } from './common-options.js';
import { runDryRunCommand } from './dry-run-command.js';
import { EXIT } from './exit-codes.js';

type ImportArgs = JobArgs & { 'dry-run': boolean; payloads?: string | undefined };

export const importCommand: CliCommand<ImportArgs> = {
  command: 'import <job>',
  describe: 'Send every valid row of a job to the API in dependency order (--dry-run: validate only)',
  builder: (y) =>
    withJobOptions(y)
      .option('dry-run', { type: 'boolean', default: false, describe: 'Validate and report; send nothing' })
      .option('payloads', { type: 'string', describe: 'With --dry-run: write the exact request each valid row would send (NDJSON)' })
      .example('$0 import samples/job.yaml --dry-run --payloads out/payloads.ndjson', 'Review what a migration would send') as never,
  run: async (args, io) => {
    if (args['dry-run']) return runDryRunCommand(args, io);
    io.stderr.write('engage-import: the live import is not available in this version yet; use --dry-run\n');
    return EXIT.USAGE;
  },
};
