import type { CliCommand } from './command.js';
import { withJobOptions, type JobArgs } from './common-options.js';
import { runDryRunCommand } from './dry-run-command.js';
import { DEFAULT_STATE_DIR } from './incremental-preview.js';

type ValidateArgs = JobArgs & {
  payloads?: string | undefined;
  incremental?: boolean | undefined;
  'state-dir'?: string | undefined;
};

export const validateCommand: CliCommand<ValidateArgs> = {
  command: 'validate <job>',
  describe: 'Check every row of a job or mapping against what the API requires; sends nothing',
  builder: (y) =>
    withJobOptions(y)
      .option('payloads', { type: 'string', describe: 'Write the exact request each valid row would send (NDJSON)' })
      .option('incremental', {
        type: 'boolean',
        describe:
          "Preview an incremental run: each valid row is new, changed, unchanged, already_sent or superseded against the sync state (default: the job file's sync: setting)",
      })
      .option('state-dir', {
        type: 'string',
        describe: `Where the sync state is kept (with --incremental; default: ${DEFAULT_STATE_DIR} beside the job file, as for import)`,
      })
      .example('$0 validate samples/job.yaml', 'Check the bundled samples; report in out/report.csv')
      .example(
        '$0 validate mappings/deals.yaml --input export.csv --rejects out/fix-me.csv',
        'Check another export with the same mapping',
      )
      .example(
        '$0 validate nightly.yaml --incremental',
        "What would tonight's incremental run send, and how long would it take?",
      ) as never,
  run: runDryRunCommand,
};
