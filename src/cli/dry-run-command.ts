import { resolve } from 'node:path';
import { loadJob } from '../config/load-job.js';
import { stateDirBeside } from '../sync/index.js';
import { runDryRun } from '../pipeline/dry-run.js';
import type { CliIo } from './command.js';
import { commandApiKey } from './credentials.js';
import type { JobArgs } from './common-options.js';
import { EXIT } from './exit-codes.js';
import { openPreview, type PreviewArgs } from './incremental-preview.js';
import { bulkOptionsOf, type BulkChoiceArgs } from './live-options.js';
import { outputPath, protectedPaths } from './output-args.js';
import { printSummary } from './print-summary.js';

/** `validate` and `import --dry-run`: every row checked locally, nothing sent. */
export async function runDryRunCommand(
  args: JobArgs &
    Partial<PreviewArgs> &
    Partial<BulkChoiceArgs> & {
      payloads?: string | undefined;
      'base-url'?: string | undefined;
      'api-key-file'?: string | undefined;
      'state-dir'?: string | undefined;
    },
  io: CliIo,
): Promise<number> {
  const job = await loadJob(args.job, { cwd: io.cwd, ...(args.input !== undefined ? { input: args.input } : {}) });
  const at = (option: string, p: string | undefined) => (p === undefined ? undefined : outputPath(io.cwd, option, p));
  const preview = openPreview(job, { ...args, incremental: args.incremental }, io.cwd, previewTarget(args, io));
  const summary = await runDryRun(job, {
    cwd: io.cwd,
    report: outputPath(io.cwd, '--report', args.report),
    rejects: at('--rejects', args.rejects),
    payloads: at('--payloads', args.payloads),
    // A dry run writes its report as the live run would: never over the key file, the ledgers or
    // the sync state, in the state directory the live run would use (beside the job by default).
    protect: [
      ...protectedPaths(io.cwd, args),
      {
        path: args['state-dir'] !== undefined ? resolve(io.cwd, args['state-dir']) : stateDirBeside(job.file),
        what: 'the state directory (run ledgers, sync state)',
        folder: true,
      },
    ],
    limit: args.limit,
    rate: args.rate,
    dealUpdateMethod: args['deal-update-method'],
    classifier: preview?.classifier,
    bulk: bulkChoiceOf(args),
    signal: io.signal,
  }).finally(() => preview?.close());
  printSummary(summary, io, args);
  if (summary.aborted !== undefined) return io.signal.reason === 'SIGTERM' ? EXIT.SIGTERM : EXIT.SIGINT;
  return summary.totals.invalid + summary.totals.skipped > 0 ? EXIT.ROWS_NOT_OK : EXIT.OK;
}

/** The live import's bulk choice, which the estimate follows (both commands give the options, with their defaults). */
function bulkChoiceOf(args: Partial<BulkChoiceArgs>) {
  const { bulk, 'bulk-min-rows': minRows, 'bulk-chunk-rows': chunkRows } = args;
  if (bulk === undefined || minRows === undefined || chunkRows === undefined) return undefined;
  return bulkOptionsOf({ bulk, 'bulk-min-rows': minRows, 'bulk-chunk-rows': chunkRows });
}

/**
 * The account the live run would send to, as `import` reads it (flags first, then the
 * environment, through the same reader), for the preview's check of the state's account. A key
 * that cannot be read is left out: the preview sends nothing and needs no key.
 */
function previewTarget(args: { 'base-url'?: string | undefined; 'api-key-file'?: string | undefined }, io: CliIo) {
  let apiKey: string | undefined;
  try {
    apiKey = commandApiKey(io, args['api-key-file']);
  } catch {
    apiKey = undefined;
  }
  return { baseUrl: args['base-url'] ?? io.env.ENGAGE_BASE_URL, apiKey };
}
