import type { RequestOptions } from '../resources/index.js';
import type { ProtectedPath } from './output-paths.js';
import type { BulkOptions } from './bulk-options.js';

/** Everything a live run needs besides the job; defaults are resolved by the CLI. */
export interface LiveImportOptions extends RequestOptions {
  readonly cwd: string;
  readonly report: string;
  readonly rejects?: string | undefined;
  /** The command that continues this run, as a stop prints it; absent: its folder, report and rejects (`resumeCommand`). */
  readonly resumeCommand?: string | undefined;
  /** Files and folders no output may overwrite besides the job's inputs (the key file, the state directory). */
  readonly protect?: readonly ProtectedPath[] | undefined;
  readonly limit?: number | undefined;
  /** Requests per second for the whole run. Default 10, the service's limit. */
  readonly rate: number;
  /** Requests in flight at once. Default 4, so that 10/s holds at 300 ms latency. */
  readonly concurrency: number;
  /** Stop after validation when any row is invalid. */
  readonly failOnInvalid: boolean;
  /** Resend rows whose request may have been applied before a crash (resume only). */
  readonly resendUnknown: boolean;
  /** The bulk import path; absent: every row per row (tests, callers that predate it). */
  readonly bulk?: BulkOptions | undefined;
}
