/**
 * One import of a chunk file (or of a sub-chunk cut from it): its upload, then the wait for its
 * report, answered as a `WaitedAttempt` that settling the chunk reads. An import already started
 * (its id recorded before a crash) is only waited for.
 */
import { openAsBlob } from 'node:fs';
import { basename } from 'node:path';
import { HttpError } from '../errors.js';
import { createBulkClient, type BulkClient, type UploadOutcome, type WaitOutcome } from '../transport/bulk-client.js';
import type { Transport } from '../transport/index.js';
import type { BulkPlan } from './bulk-choice.js';
import type { BulkDeps } from './bulk-deps.js';
import type { WaitedAttempt } from './bulk-reupload.js';
import type { RunState } from './run-state.js';

/** What an upload and a wait need: the stage's bulk client and the run they may stop. */
export interface BulkImporter {
  readonly client: BulkClient;
  readonly kind: BulkPlan['kind'];
  readonly state: RunState;
  readonly transport: Transport;
  /** Counts the imports the service accepted, and the rows they carried (first uploads only). */
  readonly stats: { imports: number; rows: number };
}

export function bulkImporter(deps: BulkDeps, stats: { imports: number; rows: number }): BulkImporter {
  const { options } = deps;
  const client = createBulkClient({
    transport: deps.transport,
    timeoutMs: options.timeoutMs,
    ...(options.pollDelaysMs && { pollDelaysMs: options.pollDelaysMs }),
    ...(options.sleep && { sleep: options.sleep }),
    ...(options.now && { now: options.now }),
    ...(deps.signal && { signal: deps.signal }),
  });
  return { client, kind: deps.plan.kind, state: deps.state, transport: deps.transport, stats };
}

/** Uploads one file and waits for its import; its import id is recorded (`onImportId`) as soon as it is known. */
export async function uploadFileAndWait(
  imports: BulkImporter,
  file: string,
  onImportId: (importId: string) => void,
): Promise<WaitedAttempt | 'not_sent'> {
  const { state } = imports;
  if (state.stopReason !== undefined) return 'not_sent';
  let answer: UploadOutcome;
  try {
    answer = await imports.client.upload({
      kind: imports.kind,
      file: await openAsBlob(file),
      fileName: basename(file),
    });
  } catch (error) {
    // 401 and the other answers no request can get past: the file was refused, nothing imported.
    if (!(error instanceof HttpError)) throw error;
    state.stop({ kind: 'api', message: error.message });
    return 'not_sent';
  }
  const stopped = imports.transport.stopped();
  if (stopped !== undefined) state.stop({ kind: 'api', message: stopped.message });
  switch (answer.kind) {
    case 'refused':
      return { kind: 'refused', message: answer.message };
    case 'unknown':
      return { kind: 'given_up', message: answer.message, importId: undefined };
    case 'not_sent':
      if (answer.mayHaveApplied)
        return {
          kind: 'given_up',
          message: `${answer.message}; the upload may have created an import`,
          importId: undefined,
        };
      // Given up (not stopped with the run): later chunks may hold later rows of its keys, and
      // later stages its children: stop here.
      if (answer.givenUp === true) state.givenUpUnsent(answer.message);
      return 'not_sent';
    case 'accepted':
      imports.stats.imports++;
      try {
        onImportId(answer.importId);
      } catch (error) {
        state.ledgerBroke(error);
      }
      return awaitRecordedImport(imports, answer.importId);
  }
}

/** Polls an import already started until it ends, the wait gives up, or the run is interrupted. */
export async function awaitRecordedImport(imports: BulkImporter, importId: string): Promise<WaitedAttempt> {
  let wait: WaitOutcome;
  try {
    wait = await imports.client.waitForImport(importId);
  } catch (error) {
    if (!(error instanceof HttpError)) throw error;
    imports.state.stop({ kind: 'api', message: error.message });
    return { kind: 'given_up', message: `import ${importId}: ${error.message}`, importId, stopped: true };
  }
  if (wait.kind === 'ended') return { kind: 'ended', importId, report: wait.report };
  const message = wait.message.includes(importId) ? wait.message : `import ${importId}: ${wait.message}`;
  // Out of time, or a poll given up unsent while the run goes on (429s that never ended).
  if (wait.kind === 'timeout' || (wait.kind === 'stopped' && wait.givenUp === true)) {
    // The import goes on at the service. Nothing more leaves: a later chunk imported meanwhile
    // could be overwritten by this one's rows of the same key, and a later stage (events) could
    // reach contacts not imported yet. A resend polls it again rather than upload its rows twice.
    imports.state.stop({
      kind: 'api',
      message: `${message}; the run stops so that no later row overtakes it: resume waits for it again, then sends the rest`,
    });
    return {
      kind: 'given_up',
      message: `${message}: resume waits for it again`,
      importId,
      running: true,
    };
  }
  return { kind: 'given_up', message, importId, stopped: wait.kind === 'stopped' };
}
