import type { Argv } from 'yargs';
import { DEFAULTS } from '../defaults.js';
import { defineCommand } from './command.js';
import { withJobOptions } from './common-options.js';
import { runDryRunCommand } from './dry-run-command.js';
import { withBulkChoiceOptions } from './live-options.js';

function validateOptions(y: Argv) {
  return withBulkChoiceOptions(withJobOptions(y))
    .option('payloads', { type: 'string', describe: 'Write the exact request each valid row would send (NDJSON)' })
    .option('incremental', {
      type: 'boolean',
      describe:
        "Preview an incremental run: each valid row is new, changed, unchanged, already_sent or superseded against the sync state (default: the job file's sync: setting)",
    })
    .option('full-refresh', {
      type: 'boolean',
      describe:
        'Preview a full refresh: unchanged entities would be sent again; events and deal creates the state holds never are',
    })
    .conflicts('incremental', 'full-refresh')
    .option('state-dir', {
      type: 'string',
      describe: `Where the sync state is kept (with --incremental; default: ${DEFAULTS.stateDir} beside the job file, as for import)`,
    })
    .option('key-rotated', {
      type: 'boolean',
      describe:
        "With --incremental: ENGAGE_API_KEY is this account's key, rotated since the sync state was recorded (as for import); the preview changes nothing",
    })
    .example('$0 validate samples/job.yaml', `Check the bundled samples; report in ${DEFAULTS.report}`)
    .example(
      '$0 validate mappings/deals.yaml --input export.csv --rejects out/fix-me.csv',
      'Check another export with the same mapping',
    )
    .example(
      '$0 validate nightly.yaml --incremental',
      "What would tonight's incremental run send, and how long would it take?",
    );
}

export const validateCommand = defineCommand({
  command: 'validate <job>',
  describe: 'Check every row of a job or mapping against what the API requires; sends nothing',
  builder: validateOptions,
  run: runDryRunCommand,
});
