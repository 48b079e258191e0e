import type { Argv } from 'yargs';
import { withAlertOptions, type AlertArgs } from './alert-options.js';
import { wholeNumber } from './number-options.js';

/** Options of the live import and resume: connection, pacing, retries, state. */
export function withLiveOptions(y: Argv) {
  return withAlertOptions(y)
    .option('base-url', { type: 'string', describe: 'The account\'s API root, e.g. https://acme.example.com/api/public/ (or ENGAGE_BASE_URL)' })
    .option('api-key-file', { type: 'string', describe: 'File holding the API key (or ENGAGE_API_KEY). Never pass the key itself on the command line' })
    .option('concurrency', { type: 'number', default: 4, coerce: wholeNumber('--concurrency', 1), describe: 'Requests in flight at once (4 holds 10 req/s at 300 ms latency)' })
    .option('max-attempts', { type: 'number', default: 5, coerce: wholeNumber('--max-attempts', 1), describe: 'Attempts per request on 5xx and network errors' })
    .option('unsafe-retries', {
      choices: ['safe', 'never', 'always'] as const,
      default: 'safe' as const,
      describe: 'Non-idempotent rows (events, product events, deal and product create): safe = retry 5xx and requests that never left, never resend a lost answer; never = also no retry after a 5xx (at most once); always = resend lost answers too (at least once)',
    })
    .option('fail-on-invalid', { type: 'boolean', default: false, describe: 'Send nothing when any row is invalid' })
    .option('state-dir', { type: 'string', default: '.engage-import', describe: 'Where run ledgers are kept (one folder per run)' })
    .option('resend-unknown', { type: 'boolean', default: false, describe: 'On resume, resend rows that were in flight when the run stopped (may duplicate them)' });
}

export type LiveArgs = AlertArgs & {
  'base-url'?: string | undefined;
  'api-key-file'?: string | undefined;
  concurrency: number;
  'max-attempts': number;
  'unsafe-retries': 'safe' | 'never' | 'always';
  'fail-on-invalid': boolean;
  'state-dir': string;
  'resend-unknown': boolean;
};
