import { resolve } from 'node:path';
import { loadJob } from '../config/load-job.js';
import { runDryRun } from '../pipeline/dry-run.js';
import type { CliIo } from './command.js';
import type { JobArgs } from './common-options.js';
import { EXIT } from './exit-codes.js';
import { printSummary } from './print-summary.js';

/** `validate` and `import --dry-run`: every row checked locally, nothing sent. */
export async function runDryRunCommand(args: JobArgs & { payloads?: string | undefined }, io: CliIo): Promise<number> {
  const job = await loadJob(args.job, { cwd: io.cwd, ...(args.input !== undefined ? { input: args.input } : {}) });
  const at = (p: string | undefined) => (p === undefined ? undefined : resolve(io.cwd, p));
  const summary = await runDryRun(job, {
    cwd: io.cwd,
    report: resolve(io.cwd, args.report),
    rejects: at(args.rejects),
    payloads: at(args.payloads),
    limit: args.limit,
    rate: args.rate,
    dealUpdateMethod: args['deal-update-method'],
  });
  printSummary(summary, io, args);
  return summary.totals.invalid > 0 ? EXIT.ROWS_NOT_OK : EXIT.OK;
}
