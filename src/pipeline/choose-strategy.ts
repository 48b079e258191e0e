/**
 * How a stage's rows reach the API: through the CSV import endpoint (`bulk-strategy.ts`) when
 * `bulk-choice.ts` says so, else one request per row (`send-row.ts`).
 */
import { join } from 'node:path';
import { openBulkChunks } from '../ledger/bulk-chunks.js';
import { bulkPlanOf, needsProductUpdates } from './bulk-choice.js';
import type { BulkOptions } from './bulk-options.js';
import { sendByBulk } from './bulk-strategy.js';
import type { PlanOptions } from './plan-rows.js';
import { countProductUpdates } from './product-updates.js';
import type { Semaphore } from './semaphore.js';
import { sendEachRow, type SendDeps } from './send-row.js';
import type { StageInfo, StageStrategy } from './stage-strategy.js';
import type { SourceClassifier } from '../sync/index.js';

export interface ChosenStrategy {
  readonly strategy: StageStrategy;
  /** What the summary line says of a bulk stage; undefined per row. */
  bulkStats(): { readonly rows: number; readonly imports: number } | undefined;
  /** Releases what the strategy opened (the bulk chunks' table). */
  close(): void;
}

export async function chooseStrategy(
  stage: StageInfo,
  deps: SendDeps,
  context: {
    readonly validRows: number;
    readonly bulk: BulkOptions | undefined;
    readonly inFlight: Semaphore;
    readonly signal: AbortSignal;
    readonly cwd: string;
    /** `resume --resend-unknown` (see `BulkDeps.resendUnknown`). */
    readonly resendUnknown?: boolean | undefined;
    /** The stage file's sync classifier and how its rows are planned: a small products stage counts its updates. */
    readonly sync?: SourceClassifier | undefined;
    readonly planOptions: PlanOptions;
  },
): Promise<ChosenStrategy> {
  const updates =
    context.sync !== undefined && needsProductUpdates(stage.mapping, context.validRows, context.bulk)
      ? await countProductUpdates(stage.mapping, context.planOptions, context.sync)
      : 0;
  const plan = bulkPlanOf(stage.mapping, context.validRows, context.bulk, updates);
  if (plan === undefined || context.bulk === undefined)
    return { strategy: sendEachRow(stage, deps), bulkStats: () => undefined, close: () => undefined };
  const chunks = openBulkChunks(deps.ledger.runDir, context.cwd);
  const strategy = sendByBulk(stage, {
    ...deps,
    plan,
    chunks,
    dir: join(deps.ledger.runDir, 'bulk'),
    options: context.bulk,
    inFlight: context.inFlight,
    signal: context.signal,
    resendUnknown: context.resendUnknown,
  });
  return { strategy, bulkStats: () => strategy.stats, close: () => chunks.close() };
}
