/**
 * Gives every row of one chunk its own outcome: the first import's report is resolved
 * (`row-outcomes.ts`); while rows stay unknown, they are uploaded again in sub-chunks
 * (`bisect-plan.ts`) and each sub-import resolved in turn, until every failure is named. An
 * import that ended without finishing is uploaded again whole, a bounded number of times. A
 * chunk whose upload or wait was given up (timeout, refused, interrupted) leaves its rows with
 * that message: `unknown` when they may have been applied, `failed` when the upload was refused.
 * Uploading and waiting are injected, so this runs without HTTP in tests.
 */
import type { RowFailure } from '../errors.js';
import type { ImportStatusReport } from '../transport/bulk-answers.js';
import { planBisection } from './bisect-plan.js';
import { resolveChunk, type ChunkRow } from './row-outcomes.js';

/** What became of one upload of some of the chunk's rows. */
export type ImportAttempt =
  | { readonly kind: 'ended'; readonly importId: string; readonly report: ImportStatusReport }
  /** Refused by the service (a 4xx on the upload): not imported. */
  | { readonly kind: 'refused'; readonly message: string }
  /**
   * Given up (timeout, lost, interrupted, an upload whose outcome is unknown): the rows may have
   * been applied. `running`: the wait ran out while the import was still running at the service.
   */
  | {
      readonly kind: 'given_up';
      readonly message: string;
      readonly importId: string | undefined;
      readonly running?: boolean;
    };

/**
 * A row's end in its chunk: ok, or its `RowFailure` (src/errors.ts), naming the import when its id
 * is known; `running` when the row is unknown because the wait for its import ran out.
 */
export type RowSettlement =
  | { readonly kind: 'ok'; readonly importId: string }
  | (RowFailure<'failed' | 'unknown'> & { readonly importId: string | undefined; readonly running?: boolean });

export interface SettleOptions {
  /** Uploads the chunk rows at these positions (in order) as a new import and waits for it. */
  readonly uploadAndWait: (positions: readonly number[]) => Promise<ImportAttempt>;
  /** Echoed fields a row's key may be under (`['custom_id', 'email']` for contacts). Default `['custom_id']`. */
  readonly keyFields?: readonly string[];
  /** Times one set of rows is uploaded again after its import ended without finishing. Default 2. */
  readonly wholeRetries?: number;
  /** Called after each import is resolved (progress, the ledger). */
  readonly onImport?: (importId: string, positions: readonly number[]) => void;
}

/** Upload attempts of one chunk that stops short of naming every failure end here: a hard bound on requests. */
const MAX_IMPORTS_PER_CHUNK = 1000;

/**
 * @param rows the chunk's rows, in upload order.
 * @param first what the chunk's own upload came to.
 * @returns one settlement per row, in order.
 */
export async function settleChunk(
  rows: readonly ChunkRow[],
  first: ImportAttempt,
  options: SettleOptions,
): Promise<RowSettlement[]> {
  const keyFields = options.keyFields ?? ['custom_id'];
  const wholeRetries = options.wholeRetries ?? 2;
  const settled: (RowSettlement | undefined)[] = rows.map(() => undefined);
  const work: { positions: number[]; attempt: ImportAttempt | undefined; whole: number }[] = [
    { positions: rows.map((_, i) => i), attempt: first, whole: 0 },
  ];
  let imports = 1;

  while (work.length > 0) {
    const item = work.shift()!;
    let attempt = item.attempt;
    if (attempt === undefined) {
      if (imports >= MAX_IMPORTS_PER_CHUNK) {
        for (const p of item.positions)
          settled[p] = {
            kind: 'unknown',
            message: `gave up naming every failure after ${imports} imports`,
            importId: undefined,
          };
        continue;
      }
      imports++;
      attempt = await options.uploadAndWait(item.positions);
    }
    if (attempt.kind === 'refused') {
      for (const p of item.positions)
        settled[p] = { kind: 'failed', message: `the upload was refused: ${attempt.message}`, importId: undefined };
      continue;
    }
    if (attempt.kind === 'given_up') {
      for (const p of item.positions)
        settled[p] = {
          kind: 'unknown',
          message: attempt.message,
          importId: attempt.importId,
          ...(attempt.running === true && { running: true }),
        };
      continue;
    }
    const { importId, report } = attempt;
    options.onImport?.(importId, item.positions);
    const resolution = resolveChunk(
      item.positions.map((p) => rows[p]!),
      report,
      keyFields,
    );
    const unknown: number[] = [];
    resolution.verdicts.forEach((verdict, i) => {
      const p = item.positions[i]!;
      if (verdict.kind === 'ok') settled[p] = { kind: 'ok', importId };
      else if (verdict.kind === 'failed') settled[p] = { kind: 'failed', message: verdict.message, importId };
      else unknown.push(p);
    });
    if (unknown.length === 0) continue;
    if (resolution.uploadAgainWhole) {
      if (item.whole >= wholeRetries) {
        const why =
          report.state === 'finished'
            ? `its counts do not add up (${report.succeeded ?? '?'} succeeded, ${report.failed ?? '?'} failed of ${item.positions.length})`
            : `it ended with status "${report.status}"`;
        for (const p of unknown)
          settled[p] = {
            kind: 'unknown',
            message: `import ${importId}: ${why}, ${item.whole + 1} times; it may have applied some rows: resume --resend-unknown uploads them again (safe: the import matches rows by their key)`,
            importId,
          };
      } else work.push({ positions: unknown, attempt: undefined, whole: item.whole + 1 });
      continue;
    }
    for (const part of planBisection(unknown, resolution.unnamedFailures))
      work.push({ positions: part, attempt: undefined, whole: 0 });
  }
  return settled.map((s) => s ?? { kind: 'unknown', message: 'no outcome', importId: undefined });
}
