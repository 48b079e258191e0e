import type { ResolvedMapping } from '../config/mapping-schema.js';
import type { LedgerEntry } from '../ledger/index.js';
import type { ResourceDef } from '../resources/index.js';
import type { PlannedRow } from './plan-rows.js';
import type { Settled } from './report-window.js';
import type { SyncVerdict } from './sync-verdicts.js';

/**
 * A valid row of the stage being run, with its file as the report shows it, and what the sync
 * state said of it (`new`, `changed`, or, on a full refresh, `unchanged`): a
 * strategy passes `sync.key` with the row's `ok` outcome, so the next run knows it was accepted.
 */
export type SendableRow = Extract<PlannedRow, { status: 'valid' }> & {
  readonly file: string;
  readonly sync?: SyncVerdict | undefined;
};

/** What a strategy knows of the stage it sends. */
export interface StageInfo {
  /** The mapping's position in the run: the ledger's `source`. */
  readonly index: number;
  readonly mapping: ResolvedMapping;
  readonly def: ResourceDef;
  /** The CSV as the report shows it. */
  readonly file: string;
}

/**
 * How the rows of one stage reach the API. The stage runner (`runStage`) does everything
 * around it, the same for every strategy: input order, invalid rows, the resume decision, the
 * cascade of skips, the run's stop, the cap on rows in flight. A strategy gets only rows that
 * may be sent, and answers each with its report line (a promise: it may settle later).
 * - `send`: one row; `before` is what the ledger knew of it (a resumed run).
 * - `flush`: optional; called when the report window is full and at the end of the stage, so a
 *   strategy that batches rows (a bulk upload) sends what it holds.
 * The default strategy sends each row as its own request (`sendEachRow`). A strategy that skips
 * unchanged rows would answer some rows itself and hand the others to `sendEachRow`.
 */
export interface StageStrategy {
  send(row: SendableRow, before: LedgerEntry | undefined): Promise<Settled>;
  /**
   * `window_full`: the stage waits for its oldest line; settle what holds it (or wait for it).
   * Answers whether it waited for something it held: then the stage asks again while its oldest
   * line still waits, since that line may wait on a batch behind the one it settled.
   * `stage_end`: no row follows; send everything held and let it all settle.
   */
  flush?(reason: 'window_full' | 'stage_end'): Promise<boolean>;
  /**
   * A batching strategy: rows it may hold before they can settle. The stage's report window is at
   * least this large, and its rows do not take the run's in-flight slots (the strategy paces its
   * own requests).
   */
  readonly holds?: number;
  /**
   * The strategy applies rows by an upsert (a bulk import): a row in flight at a crash may be sent
   * again even when its per-row request is not idempotent; the strategy itself decides what to do
   * with the rows it cannot send that way.
   */
  readonly upsert?: boolean;
  /**
   * Optional: a promise while the stage should read no further row, undefined otherwise. A bulk
   * strategy pauses the reading while an upload leaves: the service waits for that upload, and
   * the reading would take the CPU from it (the next chunk has the whole import to fill).
   */
  readingPause?(): Promise<void> | undefined;
  /**
   * Optional: a resumed run reported this row from its ledger (`ok` or `failed` before the crash)
   * without sending it. A strategy that remembers the stage's keys learns it here (a product an
   * earlier run of this stage created makes a later row with its custom_id a duplicate create).
   */
  answeredFromLedger?(row: SendableRow, entry: LedgerEntry): void;
  /**
   * Optional: whether a row the ledger holds as `unknown` is so only because the run stopped
   * waiting for its import, which may still run at the service. Any resume waits for that import
   * (waiting sends nothing), with or without --resend-unknown: reported `unknown` from the ledger
   * instead, the stage would end and a later one (events) reach contacts not imported yet.
   */
  awaitsImport?(row: SendableRow): boolean;
}
