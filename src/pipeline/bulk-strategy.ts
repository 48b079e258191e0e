/**
 * The bulk strategy: a stage's rows through the API's CSV import endpoint (docs/api-contract.md
 * R-BULK-1 … R-BULK-9), each row still with its own report line and status.
 *
 * Rows are written as they come into a chunk file in the run folder (`bulk/`); the file, not
 * memory, holds a chunk's CSV. A chunk is closed at `chunkRows` or at the 200 MB limit. A row whose
 * key is already in the chunk being filled is sent per row once that chunk's import has settled
 * (one import cannot hold two rows of a key: its report could not tell them apart, nor say which
 * was applied last), and so are the later rows of its key while that send is pending.
 * A closed chunk is recorded in the ledger (its rows, then their intents), uploaded, its import id
 * recorded, polled, and settled row by row (`settleChunk`: failures the import did not list are
 * found by uploading the unknown rows again in smaller chunks). Chunks go one after the other.
 * A row whose payload a CSV cell cannot carry (`null`, `""`, `[]`, a list value holding `|`) is
 * sent per row instead, so both paths give it the same status. A product whose custom_id an
 * earlier row of the stage carries is never uploaded (`bulk-duplicate-creates.ts`): failed as its
 * per-row create would be, or sent per row when no earlier row created the product.
 *
 * Resume: a row in flight at a crash whose chunk has a recorded import id joins that chunk again,
 * and the import is polled, not uploaded again; a chunk without an id is uploaded again (upsert).
 * The re-uploads of bisection are recorded as the chunk's sub-imports (`bulk-reupload.ts`), so a
 * resume polls those already started too, and uploads only the sets whose answer was lost.
 *
 * The pieces: `bulk-batch.ts` (a batch and its members, the chunk file, recording a chunk),
 * `bulk-batch-queue.ts` (the open batches, one import at a time), `bulk-batch-import.ts` (one
 * batch's import and settling), `bulk-import-attempt.ts` (one upload and wait) and
 * `bulk-settle-rows.ts` (each row's ledger outcome and report line); `bulk-deps.ts` holds what
 * the strategy is given and its counters.
 */
import { existsSync, mkdirSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { payloadLine } from '../bulk/chunk-csv.js';
import type { BulkChunkRecord } from '../ledger/bulk-chunks.js';
import type { LedgerEntry } from '../ledger/index.js';
import { IN_DOUBT_MESSAGE } from '../transport/in-doubt.js';
import { addRow, ChunkFileNames, rejoin, removeUnrecordedChunkFiles } from './bulk-batch.js';
import type { StageBulk } from './bulk-batch-import.js';
import { BatchQueue } from './bulk-batch-queue.js';
import type { BulkDeps, BulkStats } from './bulk-deps.js';
import { withDuplicateCreates } from './bulk-duplicate-creates.js';
import { bulkImporter } from './bulk-import-attempt.js';
import { settled, type Settled } from './report-window.js';
import { baseLine, sendEachRow } from './send-row.js';
import type { SendableRow, StageInfo, StageStrategy } from './stage-strategy.js';

type Send = (row: SendableRow, before: LedgerEntry | undefined) => Promise<Settled>;

export function sendByBulk(stage: StageInfo, deps: BulkDeps): StageStrategy & { readonly stats: BulkStats } {
  const { plan, options } = deps;
  const perRow = sendEachRow(stage, deps);
  const stats = { rows: 0, imports: 0 };
  removeUnrecordedChunkFiles(deps.dir, stage.index, deps.chunks.recordedFiles(stage.index));
  // Made before the first row: that row opens its chunk file at once, and an asynchronous mkdir
  // still under way then made the open fail (ENOENT) on a loaded machine.
  try {
    mkdirSync(deps.dir, { recursive: true });
  } catch (error) {
    // A full disk: the run stops as on any disk failure (exit 3), its rows reported not_sent.
    deps.state.ledgerBroke(error);
  }
  const run: StageBulk = {
    stage,
    deps,
    imports: bulkImporter(deps, stats),
    names: new ChunkFileNames(deps.dir, stage.index, deps.ledger.runId),
  };
  const queue = new BatchQueue(run);
  const sendPerRow: Send = (row, before) => sendOnePerRow(stage, deps, perRow, row, before);
  const chunking: Chunking = {
    run,
    queue,
    sendPerRow,
    perRowByKey: new Map(),
    staleFiles: new Set(),
    keptFiles: new Map(),
  };
  const sendToChunk: Send = (row, before) => toChunk(chunking, row, before);

  // Products are created per row: a later row with a custom_id already in the stage is not uploaded.
  const duplicates =
    stage.mapping.resource === 'product'
      ? withDuplicateCreates(stage, deps, (row) => plan.keyOf(row.payload), sendToChunk, sendPerRow)
      : undefined;
  const send = duplicates?.send ?? sendToChunk;

  return {
    // One chunk's rows wait for their import while the next chunk is read, written and recorded,
    // so the client's work overlaps the service's; a held row is small (`HeldRow`, bulk-batch.ts).
    holds: 2 * options.chunkRows + 256,
    upsert: true,
    stats,
    send,
    flush: (reason) => queue.flush(reason),
    readingPause: () => queue.uploadLeaving,
    awaitsImport: (row) => importStillAwaited(chunking, row) !== undefined,
    ...(duplicates !== undefined && { answeredFromLedger: duplicates.learn }),
  };
}

interface Chunking {
  readonly run: StageBulk;
  readonly queue: BatchQueue;
  readonly sendPerRow: Send;
  /** Keys with a row being sent per row, and that send: the next row of the key waits for it. */
  readonly perRowByKey: Map<string, Promise<Settled>>;
  /** Files of chunks recorded before a crash and not uploaded again, already deleted. */
  readonly staleFiles: Set<string>;
  /** Whether the files of chunks whose import a resent row may join again are still there. */
  readonly keptFiles: Map<string, boolean>;
}

/** A row into its batch: the recorded chunk it was in at a crash, or the chunk being filled. */
function toChunk(chunking: Chunking, row: SendableRow, before: LedgerEntry | undefined): Promise<Settled> {
  const { stage, deps } = chunking.run;
  if (before?.state === 'intent') {
    const record = deps.chunks.chunkOf(stage.index, row.line);
    if (record?.importId != null) {
      // In flight at a crash, its import known: wait for that import, never upload again.
      return rejoin(chunking.queue.resumedBatchOf(record), row, undefined);
    }
    // Its upload was never answered: its rows go into new chunks, and nothing reads its file again.
    if (record !== undefined) removeStaleChunkFile(chunking, record.file);
  }
  if (before?.state === 'unknown') {
    // Resumed after the run stopped waiting for its import, which may still run: wait for that
    // import again, never upload the rows twice. Its chunk file is kept for this only.
    const record = importStillAwaited(chunking, row);
    if (record !== undefined) {
      return rejoin(chunking.queue.resumedBatchOf(record), row, before);
    }
  }
  const line = payloadLine(deps.plan.columns, row.payload);
  const key = deps.plan.keyOf(row.payload);
  const pending = key === undefined ? undefined : chunking.perRowByKey.get(key);
  // A key already in the chunk being filled (or the recorded chunk a resume joins again): one
  // import cannot hold two rows of a key, so this row goes per row once that chunk's import has
  // settled, and the chunk goes on filling.
  const repeats = key !== undefined && chunking.queue.holdsOpen(key);
  if (!line.ok || pending !== undefined || repeats) return perRowInKeyOrder(chunking, row, before, key, pending);
  const batch = chunking.queue.batchFor(line.text);
  const answer = addRow(batch, row, key, line.text, before);
  if (batch.members.length >= deps.options.chunkRows) chunking.queue.close(batch);
  return answer;
}

/**
 * A row sent per row (a CSV cell cannot carry it, or an earlier row of its key is still being
 * sent per row): the rows of one key reach the API in input order, so the later one wins, as it
 * would per row. It leaves after the import of every open chunk holding its key and after the
 * earlier per-row send of its key; while it is pending, later rows of its key follow it per row
 * rather than go into a chunk whose import could overtake it.
 */
function perRowInKeyOrder(
  chunking: Chunking,
  row: SendableRow,
  before: LedgerEntry | undefined,
  key: string | undefined,
  pending: Promise<unknown> | undefined,
): Promise<Settled> {
  if (key === undefined) return chunking.sendPerRow(row, before);
  const chunks = chunking.queue.settledWith(key);
  const answer =
    chunks === undefined && pending === undefined
      ? chunking.sendPerRow(row, before)
      : // Only the order matters here: a send that failed (a bug, which stops the run) answers its own row.
        Promise.all([chunks, pending?.catch(() => undefined)]).then(() => chunking.sendPerRow(row, before));
  chunking.perRowByKey.set(key, answer);
  const done = () => {
    if (chunking.perRowByKey.get(key) === answer) chunking.perRowByKey.delete(key);
  };
  void answer.then(done, done);
  return answer;
}

/**
 * The recorded chunk of a row whose import the run stopped waiting for (--bulk-timeout), when it
 * may still run: its id is recorded and its file kept, as only such an import's is.
 */
function importStillAwaited(chunking: Chunking, row: SendableRow): BulkChunkRecord | undefined {
  const record = chunking.run.deps.chunks.chunkOf(chunking.run.stage.index, row.line);
  return record?.importId != null && chunkFileKept(chunking, record.file) ? record : undefined;
}

/** Whether a recorded chunk's file is still there (asked once per file). */
function chunkFileKept(chunking: Chunking, file: string): boolean {
  let kept = chunking.keptFiles.get(file);
  if (kept === undefined) {
    kept = existsSync(file);
    chunking.keptFiles.set(file, kept);
  }
  return kept;
}

/** Deletes, once, the file of a chunk recorded before a crash that will not be uploaded again (it holds rows' data). */
function removeStaleChunkFile(chunking: Chunking, file: string): void {
  if (chunking.staleFiles.has(file)) return;
  chunking.staleFiles.add(file);
  void rm(file, { force: true }).catch(() => undefined);
}

/** A row a CSV cell cannot carry: per row, in the run's in-flight slots. */
async function sendOnePerRow(
  stage: StageInfo,
  deps: BulkDeps,
  perRow: StageStrategy,
  row: SendableRow,
  before: LedgerEntry | undefined,
): Promise<Settled> {
  // Not in a chunk: its per-row request was in flight at the crash, and that is no upsert.
  if (before?.state === 'intent' && !row.idempotent)
    return settled({ ...baseLine(stage, row), status: 'unknown', message: IN_DOUBT_MESSAGE });
  await deps.inFlight.acquire();
  try {
    return await perRow.send(row, before);
  } finally {
    deps.inFlight.release();
  }
}
