import type { Argv } from 'yargs';
import { DEFAULTS } from '../defaults.js';
import { parseMaxFailed } from '../notify/max-failed.js';
import type { NoOptions, OptionsOf } from './command.js';

/** Options of a live run for nightly jobs: who is told at the end, and how many bad rows are acceptable. */
export function withAlertOptions<T>(y: Argv<T>) {
  return y
    .option('notify-url', {
      type: 'string',
      describe:
        'POST the summary (JSON, with a one-line `text` for Slack/Teams webhooks) here at the end of the run (or ENGAGE_NOTIFY_URL); shown as scheme and host only',
    })
    .option('notify-on', {
      choices: ['failure', 'always'] as const,
      default: DEFAULTS.notifyOn,
      describe: 'Notify when the exit code is not 0 (failure), or after every run',
    })
    .option('max-failed', {
      type: 'string',
      coerce: parseMaxFailed,
      describe: 'Exit 0 when at most N rows (or P% of the rows) are not ok; the summary still lists them',
    });
}

export type AlertArgs = OptionsOf<typeof withAlertOptions<NoOptions>>;
