/**
 * The import of one batch, once its turn comes: a fresh chunk's file is uploaded (its import id
 * recorded as soon as it is known), a resumed chunk's recorded import is polled, not uploaded
 * again; then the chunk is settled (failures the import did not list are found by uploading the
 * unknown rows again in smaller chunks, `bulk-reupload.ts`) and each member answered.
 *
 * Turns: once a batch's imports have ended, the next batch's upload may leave (`handOff`), and the
 * batch's rows are settled only after that upload has been answered. Settling frees room in the
 * report window, which lets the reader fill the following chunk: both are CPU work that would
 * otherwise slow the upload down while the service has nothing to do.
 */
import { rm } from 'node:fs/promises';
import { settleChunk, type RowSettlement } from '../bulk/settle-chunk.js';
import {
  answerEach,
  undoIntents,
  type ChunkFileNames,
  type FreshBatch,
  type Member,
  type ResumedBatch,
} from './bulk-batch.js';
import type { BulkDeps } from './bulk-deps.js';
import { awaitRecordedImport, uploadFileAndWait, type BulkImporter } from './bulk-import-attempt.js';
import { reuploader, type WaitedAttempt } from './bulk-reupload.js';
import { settleRows } from './bulk-settle-rows.js';
import { settled, type Settled } from './report-window.js';
import { baseLine, unsentLine } from './send-row.js';
import type { StageInfo } from './stage-strategy.js';

/** What importing a batch needs from the stage. */
export interface StageBulk {
  readonly stage: StageInfo;
  readonly deps: BulkDeps;
  readonly imports: BulkImporter;
  readonly names: ChunkFileNames;
}

const NOT_IN_CHUNK: RowSettlement = { kind: 'unknown', message: 'not in its chunk', importId: undefined };

/**
 * A batch's turn at the service: `handOff` is called once the batch will start no more import;
 * it lets the next batch's upload leave and answers once that upload has been answered.
 * `uploaded` is called once this batch's own upload has been answered (or will not leave).
 */
export interface Turn {
  readonly handOff: () => Promise<void>;
  readonly uploaded: () => void;
}

/** Uploads a fresh chunk once it is recorded (`recorded`: its number, or undefined when it is not to be sent). */
export async function runFresh(
  run: StageBulk,
  batch: FreshBatch,
  recorded: Promise<number | undefined>,
  turn: Turn,
): Promise<void> {
  const { stage, deps } = run;
  const { members } = batch;
  const chunk = await recorded;
  if (chunk === undefined) {
    turn.uploaded();
    await removeChunkFile(batch.file);
    return answerEach(members, (m) => notUploaded(stage, m, deps.state.stopReason));
  }
  const first = await uploadFileAndWait(run.imports, batch.file, (importId) => {
    turn.uploaded();
    // Rows uploaded: counted when the service took them, not when they were written to a chunk
    // (a run stopped meanwhile leaves written chunks that never went).
    run.imports.stats.rows += members.length;
    deps.chunks.recordImport(chunk, importId);
  }).finally(turn.uploaded);
  if (first === 'not_sent') {
    // A resume puts these rows in new chunks: this file is not read again.
    await removeChunkFile(batch.file);
    await undoIntents(stage, deps.ledger, members);
    return answerEach(members, (m) => notUploaded(stage, m, deps.state.stopReason ?? 'the upload did not leave'));
  }
  await settleAll(run, chunk, batch.file, batch.keyList, first, members, turn.handOff, true);
}

/** A row whose chunk was not uploaded: `not_sent`, or still `unknown` when it was in doubt before this run. */
function notUploaded(stage: StageInfo, m: Member, why: string | undefined): Settled {
  return unsentLine(baseLine(stage, m.row), m.row.before, true, why ?? 'the upload did not leave');
}

export async function runResumed(run: StageBulk, batch: ResumedBatch, turn: Turn): Promise<void> {
  turn.uploaded();
  const { record, members } = batch;
  const importId = record.importId!;
  // Started by the stopped run, waited for and settled by this one: the summary counts it, and its rows.
  run.imports.stats.imports++;
  run.imports.stats.rows += members.length;
  const first = await awaitRecordedImport(run.imports, importId);
  // Rows in doubt go up again only with --resend-unknown: a plain resume waits for their import,
  // and when it failed, leaves them in doubt. Once it finished, its rows are settled as any
  // import's are, which may upload the ones it did not name in smaller sets (bisection).
  const mayUploadAgain =
    run.deps.resendUnknown === true ||
    members.every((m) => m.row.before?.state !== 'unknown') ||
    (first.kind === 'ended' && first.report.state === 'finished');
  await settleAll(
    run,
    record.chunk,
    record.file,
    record.keys.map((k) => k ?? undefined),
    first,
    members,
    turn.handOff,
    mayUploadAgain,
  );
}

/**
 * Settles the chunk's rows (bisecting unnamed failures), then records and reports each member;
 * `handOff` is awaited in between, once no more import of this chunk is to come.
 */
async function settleAll(
  run: StageBulk,
  chunk: number,
  file: string,
  keys: readonly (string | undefined)[],
  first: WaitedAttempt,
  members: readonly Member[],
  handOff: () => Promise<void>,
  /** Whether rows whose outcome the import did not give may be uploaded again (bisection, a failed import). */
  mayUploadAgain: boolean,
): Promise<void> {
  const { stage, deps } = run;
  if (first.kind === 'given_up' && first.stopped) {
    // Interrupted while waiting: the ledger keeps each row's entry (an intent, or the doubt of a
    // row being resent), so a resume polls this import (waiting sends nothing).
    return answerEach(members, (m) =>
      settled({
        ...baseLine(stage, m.row),
        status: 'unknown',
        message: `${first.message}; resume to wait for it`,
      }),
    );
  }
  const again = reuploader({
    chunks: deps.chunks,
    chunk,
    file,
    subFile: () => run.names.subChunkOf(file),
    upload: (sub, onImportId) =>
      mayUploadAgain
        ? uploadFileAndWait(run.imports, sub, onImportId)
        : Promise.resolve({
            kind: 'given_up' as const,
            message:
              'not uploaded again: its chunk held rows in doubt before this run, and only resume --resend-unknown uploads them again',
            importId: undefined,
          }),
    waitFor: (importId) => awaitRecordedImport(run.imports, importId),
    ledgerBroke: (error) => deps.state.ledgerBroke(error),
    stopReason: () => deps.state.stopReason,
  });
  const outcomes = await settleChunk(
    keys.map((key) => ({ key })),
    first,
    { keyFields: deps.plan.keyFields, uploadAndWait: again.uploadAndWait },
  );
  if (again.interrupted()) {
    // A re-upload's wait was interrupted (or the run stopped before one left): the intents stay,
    // so a resume polls the recorded imports and uploads only the sets not yet started.
    return answerEach(members, (m) =>
      settled({
        ...baseLine(stage, m.row),
        status: 'unknown',
        message: `the bulk import of this row's chunk was interrupted while its failures were named; resume to wait for it`,
      }),
    );
  }
  await handOff();
  const outcomeOf = (m: Member) => outcomes[m.position] ?? NOT_IN_CHUNK;
  // Once every row's outcome is in the ledger, nothing reads the chunk file again (a resume cuts
  // its re-uploads from it only while rows are still in doubt): it holds the rows' data, so it goes.
  // It stays while an import the run stopped waiting for may still be running: a resend of its
  // rows polls that import, and may have to cut re-uploads from the file.
  const running = members.some((m) => {
    const outcome = outcomeOf(m);
    return outcome.kind === 'unknown' && outcome.running === true;
  });
  if ((await settleRows(stage, deps, members, outcomeOf)) && !running) await removeChunkFile(file);
}

/** Deletes a chunk file the run will not read again (gone already: nothing to do). */
async function removeChunkFile(file: string): Promise<void> {
  await rm(file, { force: true }).catch(() => undefined);
}
