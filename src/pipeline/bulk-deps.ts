/** What the bulk strategy is given by the run, and what it counts for the stage's summary line. */
import type { BulkChunks } from '../ledger/bulk-chunks.js';
import type { BulkPlan } from './bulk-choice.js';
import type { BulkOptions } from './bulk-options.js';
import type { Semaphore } from './semaphore.js';
import type { SendDeps } from './send-row.js';

export interface BulkDeps extends SendDeps {
  readonly plan: BulkPlan;
  readonly chunks: BulkChunks;
  /** Where chunk files are written (in the run folder, so a resume can cut sub-chunks from them). */
  readonly dir: string;
  readonly options: BulkOptions;
  /** Slots for the rows sent per row. */
  readonly inFlight: Semaphore;
  /** Stops polling (SIGINT/SIGTERM); the import goes on at the service and a resume polls it. */
  readonly signal?: AbortSignal | undefined;
  /**
   * `resume --resend-unknown`: rows in doubt may be uploaded again. A plain resume only waits for
   * the import they were in: when it failed, they stay in doubt rather than go up again.
   */
  readonly resendUnknown?: boolean | undefined;
}

/** What the summary line of a bulk stage shows. */
export interface BulkStats {
  /** Rows an import this command started (or waited for, on a resume) carried. */
  readonly rows: number;
  /** Imports the service accepted (first uploads and re-uploads). */
  readonly imports: number;
}
