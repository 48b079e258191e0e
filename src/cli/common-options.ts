import type { Argv } from 'yargs';
import { positiveNumber, wholeNumber } from './number-options.js';

/** Options shared by `validate` and `import`: where the job is, and what files to write. */
export function withJobOptions(y: Argv) {
  return withRunOptions(
    y.positional('job', {
      type: 'string',
      demandOption: true,
      describe: 'A job file (mappings: [...]) or a single mapping file',
    }),
  );
}

/** Output and pacing options of every command that reads a job (`resume` included). */
export function withRunOptions(y: Argv) {
  return y
    .option('input', {
      type: 'string',
      describe: "CSV file to read instead of the mapping's source.file (single mapping only)",
    })
    .option('report', { type: 'string', default: 'out/report.csv', describe: 'Report CSV: one line per input row' })
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
      default: 10,
      coerce: positiveNumber('--rate'),
      describe: 'Requests per second (the API allows 10 by default)',
    })
    .option('deal-update-method', {
      choices: ['PATCH', 'PUT'] as const,
      default: 'PATCH' as const,
      describe: 'Method for deal updates by id (the API accepts both)',
    })
    .option('json', { type: 'boolean', default: false, describe: 'Print the summary as JSON on stdout' })
    .option('quiet', { type: 'boolean', default: false, describe: 'No summary or progress on stderr' });
}

export type JobArgs = {
  job: string;
  input?: string | undefined;
  report: string;
  rejects?: string | undefined;
  limit?: number | undefined;
  rate: number;
  'deal-update-method': 'PATCH' | 'PUT';
  json: boolean;
  quiet: boolean;
};
