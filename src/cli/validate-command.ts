import type { CliCommand } from './command.js';
import { withJobOptions, type JobArgs } from './common-options.js';
import { runDryRunCommand } from './dry-run-command.js';

type ValidateArgs = JobArgs & { payloads?: string | undefined };

export const validateCommand: CliCommand<ValidateArgs> = {
  command: 'validate <job>',
  describe: 'Check every row of a job or mapping against what the API requires; sends nothing',
  builder: (y) =>
    withJobOptions(y)
      .option('payloads', { type: 'string', describe: 'Write the exact request each valid row would send (NDJSON)' })
      .example('$0 validate samples/job.yaml', 'Check the bundled samples; report in out/report.csv')
      .example('$0 validate mappings/deals.yaml --input export.csv --rejects out/fix-me.csv', 'Check another export with the same mapping') as never,
  run: runDryRunCommand,
};
