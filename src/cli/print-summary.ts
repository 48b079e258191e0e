import { formatSummary, type RunSummary } from '../report/summary.js';
import { loggerOf } from '../log/cli-logger.js';
import type { CliIo } from './command.js';

/** Human summary on stderr (unless --quiet); JSON on stdout with --json, for batch jobs. */
export function printSummary(summary: RunSummary, io: CliIo, options: { json: boolean; quiet: boolean }): void {
  if (options.json) io.stdout.write(`${JSON.stringify(summary, null, 2)}\n`);
  if (options.quiet) return;
  // --log-format json: one `summary` event rather than lines of prose.
  const log = loggerOf(io.stderr);
  if (log.format === 'json')
    log.log('info', 'summary', { summary: JSON.parse(JSON.stringify(summary)) as Record<string, unknown> });
  else io.stderr.write(formatSummary(summary));
}
