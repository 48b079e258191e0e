import type { Argv } from 'yargs';
import { DEFAULTS } from '../defaults.js';
import type { BulkOptions } from '../pipeline/bulk-options.js';
import { withAlertOptions } from './alert-options.js';
import type { NoOptions, OptionsOf } from './command.js';
import { positiveNumber, wholeNumber } from './number-options.js';

/**
 * Which stages go by bulk import, and in chunks of how many rows: the live import's choice, which
 * a dry run (`validate`, `import --dry-run`) makes too, to estimate the live import's requests.
 */
export function withBulkChoiceOptions<T>(y: Argv<T>) {
  return y
    .option('bulk', {
      choices: ['auto', 'always', 'never'] as const,
      default: DEFAULTS.bulk,
      describe:
        "CSV import endpoints for contacts, products (auto: stages with at least --bulk-min-rows valid rows) and deals (always, or `bulk: true` in the mapping); a mapping's `bulk:` overrides",
    })
    .option('bulk-min-rows', {
      type: 'number',
      default: DEFAULTS.bulkMinRows,
      coerce: wholeNumber('--bulk-min-rows', 1),
      describe: 'With --bulk auto: valid rows a contacts or products stage needs to go by bulk import',
    })
    .option('bulk-chunk-rows', {
      type: 'number',
      default: DEFAULTS.bulkChunkRows,
      coerce: wholeNumber('--bulk-chunk-rows', 1),
      describe: 'Rows per bulk upload (a file also stays under the 200 MB limit)',
    });
}

export type BulkChoiceArgs = OptionsOf<typeof withBulkChoiceOptions<NoOptions>>;

/** Options of the live import and resume: connection, pacing, retries, state. */
export function withLiveOptions<T>(y: Argv<T>) {
  return withBulkChoiceOptions(
    withAlertOptions(y)
      .option('base-url', {
        type: 'string',
        describe: "The account's API root, e.g. https://acme.example.com/api/public/ (or ENGAGE_BASE_URL)",
      })
      .option('api-key-file', {
        type: 'string',
        describe: 'File holding the API key (or ENGAGE_API_KEY). Never pass the key itself on the command line',
      })
      .option('concurrency', {
        type: 'number',
        default: DEFAULTS.concurrency,
        coerce: wholeNumber('--concurrency', 1),
        describe: `Requests in flight at once (${DEFAULTS.concurrency} holds ${DEFAULTS.rate} req/s at 300 ms latency)`,
      })
      .option('max-attempts', {
        type: 'number',
        default: DEFAULTS.maxAttempts,
        coerce: wholeNumber('--max-attempts', 1),
        describe: 'Attempts per request on 5xx and network errors (requests that never left, and idempotent ones)',
      })
      .option('in-doubt', {
        choices: ['unknown', 'resend'] as const,
        // Shown as every other default is; not set by yargs, so a deprecated --unsafe-retries can tell it was not given.
        defaultDescription: DEFAULTS.inDoubt,
        describe:
          'Non-idempotent rows (events, product events, deal and product create) whose request may have been applied (a 5xx, a lost answer): unknown (default) = never resent, reported unknown, at most once, check them then resume --resend-unknown; resend = sent again at once, at least once: the API may apply them twice',
      })
      .option('unsafe-retries', {
        choices: ['safe', 'never', 'always'] as const,
        hidden: true,
        describe: 'Deprecated: use --in-doubt (always = --in-doubt resend; safe and never = --in-doubt unknown)',
      })
      .option('max-pause', {
        type: 'number',
        default: DEFAULTS.maxPauseSeconds,
        coerce: positiveNumber('--max-pause'),
        describe: 'Longest 429 pause (seconds) the run waits; a longer one stops the run (exit 3) to resume later',
      })
      .option('request-timeout', {
        type: 'number',
        default: DEFAULTS.requestTimeoutSeconds,
        coerce: positiveNumber('--request-timeout'),
        describe: 'Seconds to wait for an answer; 3 timeouts in a row stop the run (exit 3)',
      })
      .option('fail-on-invalid', { type: 'boolean', default: false, describe: 'Send nothing when any row is invalid' })
      .option('state-dir', {
        type: 'string',
        describe: `Where run ledgers are kept, one folder per run (default: ${DEFAULTS.stateDir} beside the job file; for \`resume\` without a job, in the current folder)`,
      })
      .option('lock-wait', {
        type: 'number',
        default: DEFAULTS.lockWaitSeconds,
        coerce: wholeNumber('--lock-wait', 0),
        describe:
          'Seconds to wait for the state directory when another engage-import process holds it (a preview, a state command, another run); then the run is refused',
      })
      .option('key-rotated', {
        type: 'boolean',
        default: false,
        describe:
          "The API key is this account's, rotated since the sync state (or the run being resumed) was recorded: go on (once one request shows the API accepts the new key), and keep its fingerprint. Without it a run with another key is refused, since it may be another account",
      })
      .option('resend-unknown', {
        type: 'boolean',
        default: false,
        describe:
          'On resume, resend rows in doubt (in flight at a crash, or unknown): check the account first, a resend may duplicate them',
      }),
  ).option('bulk-timeout', {
    type: 'number',
    default: DEFAULTS.bulkTimeoutMinutes,
    coerce: positiveNumber('--bulk-timeout'),
    describe: 'Minutes one bulk import is waited for; then its rows are unknown (the message names the import id)',
  });
}

/** The options of a live run (`import` and `resume`): connection, pacing, retries, state, alerts, bulk. */
export type LiveArgs = OptionsOf<typeof withLiveOptions<NoOptions>>;

/** `import` only: which rows a live run sends; `resume` goes on in the mode the run started with. */
export function withSyncModeOptions<T>(y: Argv<T>) {
  return y
    .option('incremental', {
      type: 'boolean',
      describe:
        "Send only rows the API has not accepted yet: unchanged entities and events already sent are reported, not sent (default: the job file's sync: setting; with --dry-run: the preview)",
    })
    .option('full-refresh', {
      type: 'boolean',
      describe:
        'Send every contact, product, deal update and campaign again, unchanged ones included, and refresh the sync state; events and deal creates the state holds are never sent twice (state forget them first to do that)',
    })
    .option('accept-mapping-change', {
      type: 'boolean',
      describe:
        'Send the events of a file whose mapping changed since the sync state was recorded and whose events look new: without it such a run is refused, since a cumulative export would record its past events again',
    })
    .conflicts('incremental', 'full-refresh');
}

export type SyncModeArgs = OptionsOf<typeof withSyncModeOptions<NoOptions>>;

/** The live run's bulk options from the command line. */
export const bulkOptionsOf = (args: BulkChoiceArgs & { readonly 'bulk-timeout'?: number }): BulkOptions => ({
  mode: args.bulk,
  minRows: args['bulk-min-rows'],
  chunkRows: args['bulk-chunk-rows'],
  timeoutMs: (args['bulk-timeout'] ?? DEFAULTS.bulkTimeoutMinutes) * 60_000,
});
