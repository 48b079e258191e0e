import type { Argv } from 'yargs';
import { DEFAULTS } from '../defaults.js';
import type { NoOptions, OptionsOf } from './command.js';
import { positiveNumber, wholeNumber } from './number-options.js';

/** Options shared by `validate` and `import`: where the job is, and what files to write. */
export function withJobOptions<T>(y: Argv<T>) {
  return withRunOptions(
    y.positional('job', {
      type: 'string',
      demandOption: true,
      describe: 'A job file (mappings: [...]) or a single mapping file',
    }),
  );
}

/** Output and pacing options of every command that reads a job (`resume` included). */
export function withRunOptions<T>(y: Argv<T>) {
  return y
    .option('input', {
      type: 'string',
      describe: "CSV file to read instead of the mapping's source.file (single mapping only)",
    })
    .option('report', { type: 'string', default: DEFAULTS.report, describe: 'Report CSV: one line per input row' })
    .option('rejects', {
      type: 'string',
      describe:
        'Write rejected rows with their original columns and an error column (a job writes one file per source: <name>.<source>.csv)',
    })
    .option('limit', {
      type: 'number',
      coerce: wholeNumber('--limit', 1),
      describe: 'Read at most N rows of each file',
    })
    .option('rate', {
      type: 'number',
      default: DEFAULTS.rate,
      coerce: positiveNumber('--rate'),
      describe: 'Requests per second (the API allows 10 by default)',
    })
    .option('deal-update-method', {
      choices: ['PATCH', 'PUT'] as const,
      default: DEFAULTS.dealUpdateMethod,
      describe: 'Method for deal updates by id (the API accepts both)',
    })
    .option('json', { type: 'boolean', default: false, describe: 'Print the summary as JSON on stdout' })
    .option('quiet', { type: 'boolean', default: false, describe: 'No summary or progress on stderr' });
}

/** The options of `validate` and `import` (the job and its outputs). */
export type JobArgs = OptionsOf<typeof withJobOptions<NoOptions>>;

/** The options of every command that reads a job, the job itself aside (`resume` may take it from the run). */
export type RunArgs = OptionsOf<typeof withRunOptions<NoOptions>>;
