import { formatSummary, type RunSummary } from '../report/summary.js';
import type { CliIo } from './command.js';

/** Human summary on stderr (unless --quiet); JSON on stdout with --json, for batch jobs. */
export function printSummary(summary: RunSummary, io: CliIo, options: { json: boolean; quiet: boolean }): void {
  if (options.json) io.stdout.write(`${JSON.stringify(summary, null, 2)}\n`);
  if (!options.quiet) io.stderr.write(formatSummary(summary));
}
