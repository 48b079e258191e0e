/**
 * The bulk strategy: a stage's rows through the API's CSV import endpoint (docs/api-contract.md
 * R-BULK-1 … R-BULK-9), each row still with its own report line and status.
 *
 * Rows are written as they come into a chunk file in the run folder (`bulk/`); the file, not
 * memory, holds a chunk's CSV. A chunk is closed at `chunkRows`, at the 200 MB limit, or when a
 * row's key is already in it (the import's report could not tell two rows with one key apart).
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
 */
import { randomBytes } from 'node:crypto';
import { openAsBlob } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { headerLine, payloadLine } from '../bulk/chunk-csv.js';
import { createChunkFileWriter, type ChunkFileWriter } from '../bulk/chunk-file.js';
import { settleChunk, type RowSettlement } from '../bulk/settle-chunk.js';
import type { BulkChunkRecord, BulkChunks } from '../ledger/bulk-chunks.js';
import type { LedgerEntry, OutboxKey } from '../ledger/index.js';
import { HttpError } from '../errors.js';
import { failureLine } from '../report/failure-line.js';
import { createBulkClient, type BulkClient, type UploadOutcome, type WaitOutcome } from '../transport/bulk-client.js';
import { IN_DOUBT_MESSAGE } from '../transport/in-doubt.js';
import type { BulkPlan } from './bulk-choice.js';
import { withDuplicateCreates } from './bulk-duplicate-creates.js';
import { reuploader, type WaitedAttempt } from './bulk-reupload.js';
import type { BulkOptions } from './bulk-options.js';
import { settled, type Settled } from './report-window.js';
import type { Semaphore } from './semaphore.js';
import { baseLine, sendEachRow, type SendDeps } from './send-row.js';
import type { SendableRow, StageInfo, StageStrategy } from './stage-strategy.js';

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
}

/** What the summary line of a bulk stage shows. */
export interface BulkStats {
  /** Rows that went in a chunk. */
  readonly rows: number;
  /** Imports the service accepted (first uploads and re-uploads). */
  readonly imports: number;
}

/**
 * What a chunk keeps of a row until its import is settled: its report line's names, its CSV
 * fields (for the rejects file), its payload (the cascade's identity) and its sync key. Not the
 * request or the rest of the planned row: two chunks' rows are held at once (see `holds`).
 */
interface HeldRow {
  readonly file: string;
  readonly line: number;
  readonly key: string;
  readonly fields: readonly string[];
  readonly payload: Readonly<Record<string, unknown>>;
  readonly sync: OutboxKey | undefined;
}

interface Member {
  readonly row: HeldRow;
  readonly position: number;
  readonly resolve: (s: Settled) => void;
}

type Batch =
  | {
      readonly kind: 'fresh';
      readonly file: string;
      readonly writer: ChunkFileWriter;
      readonly members: Member[];
      readonly keys: Set<string>;
      readonly keyList: (string | undefined)[];
      done?: Promise<void>;
    }
  | { readonly kind: 'resumed'; readonly record: BulkChunkRecord; readonly members: Member[]; done?: Promise<void> };

export function sendByBulk(stage: StageInfo, deps: BulkDeps): StageStrategy & { readonly stats: BulkStats } {
  const { plan, chunks, ledger, state, options } = deps;
  const perRow = sendEachRow(stage, deps);
  const client: BulkClient = createBulkClient({
    transport: deps.transport,
    timeoutMs: options.timeoutMs,
    ...(options.pollDelaysMs && { pollDelaysMs: options.pollDelaysMs }),
    ...(options.sleep && { sleep: options.sleep }),
    ...(options.now && { now: options.now }),
    ...(deps.signal && { signal: deps.signal }),
  });
  const header = headerLine(plan.columns);
  const open: Batch[] = [];
  let filling: Extract<Batch, { kind: 'fresh' }> | undefined;
  let resuming: Extract<Batch, { kind: 'resumed' }> | undefined;
  let chain: Promise<void> = mkdir(deps.dir, { recursive: true }).then(() => undefined);
  let files = 0;
  // This process's chunk files have their own names: a resume's new chunk never overwrites the
  // file of a chunk the killed run recorded, from which that chunk's re-uploads are cut.
  const session = randomBytes(4).toString('hex');
  const stats = { rows: 0, imports: 0 };

  /**
   * Starts a batch's upload or poll after the batches before it: one import at a time. A fresh
   * chunk's file is closed and its rows recorded at once, while the import before it may still
   * run, so that its upload can leave as soon as its turn comes; and the next batch's turn comes
   * once this one's imports have ended, while its rows' outcomes are still being recorded.
   */
  const close = (batch: Batch) => {
    if (batch === filling) filling = undefined;
    if (batch === resuming) resuming = undefined;
    if (batch.done !== undefined) return;
    const recorded = batch.kind === 'fresh' ? prepare(batch) : undefined;
    // Awaited in its turn; a failure then stops the run there, as any other in `runFresh`.
    recorded?.catch(() => undefined);
    let imported: () => void = () => undefined;
    const importsEnded = new Promise<void>((resolve) => {
      imported = resolve;
    });
    const work = chain
      .then(() => (batch.kind === 'fresh' ? runFresh(batch, recorded!, imported) : runResumed(batch, imported)))
      .catch((error: unknown) => {
        // A bug: stop the run; rows not yet answered say so (an answered row keeps its line).
        state.stop({ kind: 'bug', error });
        each(batch.members, (m) =>
          settled({
            ...baseLine(stage, m.row),
            status: 'unknown',
            message: `stopped on an error while this row's bulk import was handled: ${error instanceof Error ? error.message : String(error)}`,
          }),
        );
      });
    batch.done = work.finally(() => open.splice(open.indexOf(batch), 1));
    chain = Promise.race([importsEnded, work]);
  };

  const member = (batch: Batch, row: SendableRow, position: number) =>
    new Promise<Settled>((resolve) => {
      const held: HeldRow = {
        file: row.file,
        line: row.line,
        key: row.key,
        fields: row.fields,
        payload: row.payload,
        sync: row.sync?.key,
      };
      batch.members.push({ row: held, position, resolve });
    });

  function sendToChunk(row: SendableRow, before: LedgerEntry | undefined): Promise<Settled> {
    if (before?.state === 'intent') {
      const record = chunks.chunkOf(stage.index, row.line);
      if (record?.importId != null) {
        // In flight at a crash, its import known: wait for that import, never upload again.
        if (resuming !== undefined && resuming.record.chunk !== record.chunk) close(resuming);
        if (resuming === undefined) {
          resuming = { kind: 'resumed', record, members: [] };
          open.push(resuming);
        }
        stats.rows++;
        return member(resuming, row, positionIn(record, row.line));
      }
    }
    const line = payloadLine(plan.columns, row.payload);
    if (!line.ok) return sendPerRow(row, before);
    const key = plan.keyOf(row.payload);
    if (filling !== undefined && ((key !== undefined && filling.keys.has(key)) || !filling.writer.fits(line.text)))
      close(filling);
    if (filling === undefined) {
      const file = join(deps.dir, `${stage.index}-${String(++files).padStart(5, '0')}-${ledger.runId}-${session}.csv`);
      filling = {
        kind: 'fresh',
        file,
        writer: createChunkFileWriter(file, header),
        members: [],
        keys: new Set(),
        keyList: [],
      };
      open.push(filling);
    }
    const batch = filling;
    if (key !== undefined) batch.keys.add(key);
    batch.keyList.push(key);
    // Written now, in input order; the stream buffers, and the report window bounds how much.
    void batch.writer.write(line.text)?.catch(() => undefined);
    const answer = member(batch, row, batch.members.length);
    stats.rows++;
    if (batch.members.length >= options.chunkRows) close(batch);
    return answer;
  }

  /** A row a CSV cell cannot carry: per row, in the run's in-flight slots. */
  async function sendPerRow(row: SendableRow, before: LedgerEntry | undefined): Promise<Settled> {
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

  /**
   * Closes a chunk's file and records the chunk, then its rows' intents (committed before the
   * upload leaves). Answers the chunk's number, or undefined when the run stopped first or the
   * ledger failed (the rows are then not sent).
   */
  async function prepare(batch: Extract<Batch, { kind: 'fresh' }>): Promise<number | undefined> {
    await batch.writer.close();
    const { members } = batch;
    if (state.stopReason !== undefined) return undefined;
    try {
      const chunk = chunks.recordChunk(
        stage.index,
        batch.file,
        members.map((m) => m.row.line),
        batch.keyList,
      );
      await ledger.recordIntents(
        stage.index,
        members.map((m) => m.row.line),
      );
      return chunk;
    } catch (error) {
      state.ledgerBroke(error);
      await Promise.all(members.map((m) => ledger.forget(stage.index, m.row.line).catch(() => undefined)));
      return undefined;
    }
  }

  async function runFresh(
    batch: Extract<Batch, { kind: 'fresh' }>,
    recorded: Promise<number | undefined>,
    imported: () => void,
  ): Promise<void> {
    const { members } = batch;
    const chunk = await recorded;
    if (chunk === undefined)
      return each(members, (m) =>
        settled({ ...baseLine(stage, m.row), status: 'not_sent', message: state.stopReason }),
      );
    const first = await upload(batch.file, (importId) => chunks.recordImport(chunk, importId));
    if (first === 'not_sent') {
      await Promise.all(members.map((m) => ledger.forget(stage.index, m.row.line).catch(() => undefined)));
      return each(members, (m) =>
        settled({
          ...baseLine(stage, m.row),
          status: 'not_sent',
          message: state.stopReason ?? 'the upload did not leave',
        }),
      );
    }
    await settleAll(chunk, batch.file, batch.keyList, first, members, imported);
  }

  async function runResumed(batch: Extract<Batch, { kind: 'resumed' }>, imported: () => void): Promise<void> {
    const { record, members } = batch;
    const importId = record.importId!;
    const first = await waitFor(importId);
    await settleAll(
      record.chunk,
      record.file,
      record.keys.map((k) => k ?? undefined),
      first,
      members,
      imported,
    );
  }

  /**
   * Settles the chunk's rows (bisecting unnamed failures), then records and reports each member;
   * `imported` is called in between, once no more import of this chunk is to come.
   */
  async function settleAll(
    chunk: number,
    file: string,
    keys: readonly (string | undefined)[],
    first: WaitedAttempt,
    members: readonly Member[],
    imported: () => void,
  ): Promise<void> {
    if (first.kind === 'given_up' && first.stopped) {
      // Interrupted while waiting: the intents stay, so a resume polls this import.
      return each(members, (m) =>
        settled({ ...baseLine(stage, m.row), status: 'unknown', message: `${first.message}; resume to wait for it` }),
      );
    }
    const again = reuploader({
      chunks,
      chunk,
      file,
      subFile: () => join(deps.dir, `${basename(file, '.csv')}-${session}-${++files}.csv`),
      upload,
      waitFor,
      ledgerBroke: (error) => state.ledgerBroke(error),
      stopReason: () => state.stopReason,
    });
    const outcomes = await settleChunk(
      keys.map((key) => ({ key })),
      first,
      { keyFields: plan.keyFields, uploadAndWait: again.uploadAndWait },
    );
    if (again.interrupted()) {
      // A re-upload's wait was interrupted (or the run stopped before one left): the intents stay,
      // so a resume polls the recorded imports and uploads only the sets not yet started.
      return each(members, (m) =>
        settled({
          ...baseLine(stage, m.row),
          status: 'unknown',
          message: `the bulk import of this row's chunk was interrupted while its failures were named; resume to wait for it`,
        }),
      );
    }
    imported();
    await settleRows(members, (m) => outcomes[m.position] ?? NOT_IN_CHUNK);
  }

  /** Uploads one file and waits for its import; its import id is recorded (`onImportId`) as soon as it is known. */
  async function upload(file: string, onImportId: (importId: string) => void): Promise<WaitedAttempt | 'not_sent'> {
    if (state.stopReason !== undefined) return 'not_sent';
    let answer: UploadOutcome;
    try {
      answer = await client.upload({ kind: plan.kind, file: await openAsBlob(file), fileName: basename(file) });
    } catch (error) {
      // 401 and the other answers no request can get past: the file was refused, nothing imported.
      if (!(error instanceof HttpError)) throw error;
      state.stop({ kind: 'api', message: error.message });
      return 'not_sent';
    }
    const stopped = deps.transport.stopped();
    if (stopped !== undefined) state.stop({ kind: 'api', message: stopped.message });
    switch (answer.kind) {
      case 'refused':
        return { kind: 'refused', message: answer.message };
      case 'unknown':
        return { kind: 'given_up', message: answer.message, importId: undefined };
      case 'not_sent':
        return answer.mayHaveApplied
          ? {
              kind: 'given_up',
              message: `${answer.message}; the upload may have created an import`,
              importId: undefined,
            }
          : 'not_sent';
      case 'accepted':
        stats.imports++;
        try {
          onImportId(answer.importId);
        } catch (error) {
          state.ledgerBroke(error);
        }
        return waitFor(answer.importId);
    }
  }

  async function waitFor(importId: string): Promise<WaitedAttempt> {
    let wait: WaitOutcome;
    try {
      wait = await client.waitForImport(importId);
    } catch (error) {
      if (!(error instanceof HttpError)) throw error;
      state.stop({ kind: 'api', message: error.message });
      return { kind: 'given_up', message: `import ${importId}: ${error.message}`, importId, stopped: true };
    }
    if (wait.kind === 'ended') return { kind: 'ended', importId, report: wait.report };
    const message = wait.message.includes(importId) ? wait.message : `import ${importId}: ${wait.message}`;
    return { kind: 'given_up', message, importId, stopped: wait.kind === 'stopped' };
  }

  /**
   * The members' outcomes: in the ledger first (one write for the chunk), then each row's report
   * line and its effect on later stages.
   */
  async function settleRows(members: readonly Member[], outcomeOf: (m: Member) => RowSettlement): Promise<void> {
    const answers = members.map((m) => answerOf(m.row, outcomeOf(m)));
    let note = '';
    try {
      await ledger.recordOutcomes(
        stage.index,
        answers.map((a) => a.record),
      );
    } catch (error) {
      note = ` (the run's ledger could not record this answer: ${state.ledgerBroke(error)}; a resume will report this row as in doubt)`;
    }
    for (const [i, m] of members.entries()) {
      const { record, reject, line, effect } = answers[i]!;
      if (reject !== undefined) await deps.reject(m.row, reject);
      m.resolve(settled({ ...line, message: record.outcome.message + note }, effect));
    }
  }

  /** One row's outcome as the ledger records it, its report line (without the ledger's note) and its effect. */
  function answerOf(row: HeldRow, outcome: RowSettlement) {
    const base = baseLine(stage, row);
    const by = outcome.importId === undefined ? 'bulk import' : `bulk import ${outcome.importId}`;
    switch (outcome.kind) {
      case 'ok': {
        const message = `imported by ${by}`;
        // Bulk ok outcomes are recorded here, and only here; the row's sync key goes with it, so the
        // next incremental run knows the import accepted it.
        return {
          record: { line: row.line, outcome: { state: 'ok', message, sync: row.sync } } as const,
          reject: undefined,
          line: { ...base, status: 'ok' } as const,
          effect: deps.cascade.succeeded(row, undefined),
        };
      }
      case 'failed': {
        const line = failureLine(outcome, 'bulk_import');
        return {
          record: { line: row.line, outcome: { state: 'failed', message: line.message } } as const,
          reject: outcome.message,
          line: { ...base, ...line },
          effect: deps.cascade.failed(row, 'failed'),
        };
      }
      case 'unknown': {
        const line = failureLine(outcome, 'bulk_import');
        return {
          record: { line: row.line, outcome: { state: 'unknown', message: line.message } } as const,
          reject: undefined,
          line: { ...base, ...line },
          effect: undefined,
        };
      }
    }
  }

  // Products are created per row: a later row with a custom_id already in the stage is not uploaded.
  const send =
    stage.mapping.resource === 'product'
      ? withDuplicateCreates(stage, deps, (row) => plan.keyOf(row.payload), sendToChunk, sendPerRow)
      : sendToChunk;

  return {
    // One chunk's rows wait for their import while the next chunk is read, written and recorded,
    // so the client's work overlaps the service's; a held row is small (`HeldRow`).
    holds: 2 * options.chunkRows + 256,
    upsert: true,
    stats,
    send,
    async flush(reason) {
      if (reason === 'stage_end') {
        if (resuming !== undefined) close(resuming);
        if (filling !== undefined) close(filling);
        while (open.length > 0) await open[0]!.done;
        await chain;
        return;
      }
      // The oldest open batch holds the window's head: start it if it is still filling, wait for it.
      const oldest = open[0];
      if (oldest === undefined) return;
      close(oldest);
      await oldest.done;
    },
  };
}

const NOT_IN_CHUNK: RowSettlement = { kind: 'unknown', message: 'not in its chunk', importId: undefined };

const positions = new WeakMap<BulkChunkRecord, Map<number, number>>();

/** A line's position in a recorded chunk (its row in the chunk file). */
function positionIn(record: BulkChunkRecord, line: number): number {
  let map = positions.get(record);
  if (map === undefined) {
    map = new Map(record.lines.map((l, i) => [l, i]));
    positions.set(record, map);
  }
  return map.get(line) ?? -1;
}

function each(members: readonly Member[], line: (m: Member) => Settled): void {
  for (const m of members) m.resolve(line(m));
}
