/**
 * The re-uploads that bisection asks of one chunk (`settleChunk`'s `uploadAndWait`), each
 * recorded in the run's ledger as a sub-import of its chunk: its rows (positions in the chunk
 * file) before the upload leaves, its import id as soon as the upload is answered.
 *
 * On a resume the chunk's import is polled again and bisection, which depends only on the
 * imports' reports, asks for the same sets in the same order: a set recorded with an import id is
 * polled, never uploaded again; a set recorded without one (its answer was lost, or the run
 * stopped before it left) is uploaded again, which the importer's upsert makes safe. A set that
 * was never recorded is recorded, then uploaded.
 */
import { access, rm } from 'node:fs/promises';
import { writeSubChunk } from '../bulk/chunk-file.js';
import type { ImportAttempt } from '../bulk/settle-chunk.js';
import type { BulkChunks, BulkSubImport } from '../ledger/bulk-chunks.js';

/** What waiting for an import came to; `stopped` when the run was interrupted or stopped while it waited. */
export type WaitedAttempt = ImportAttempt & { readonly stopped?: boolean };

export interface ReuploadDeps {
  readonly chunks: BulkChunks;
  /** The chunk's number in the ledger. */
  readonly chunk: number;
  /** The chunk file the sub-chunks are cut from. */
  readonly file: string;
  /** A path for the next sub-chunk file. */
  readonly subFile: () => string;
  /** Uploads a file and waits for its import; `onImportId` is called as soon as the upload is answered. */
  readonly upload: (file: string, onImportId: (importId: string) => void) => Promise<WaitedAttempt | 'not_sent'>;
  /** Polls an import already started. */
  readonly waitFor: (importId: string) => Promise<WaitedAttempt>;
  /** The ledger failed: stops the run, answers why. */
  readonly ledgerBroke: (error: unknown) => string;
  readonly stopReason: () => string | undefined;
}

export interface Reuploader {
  readonly uploadAndWait: (positions: readonly number[]) => Promise<ImportAttempt>;
  /**
   * A wait was interrupted, or the run stopped before a set left: the imports started go on at
   * the service and the chunk's rows must keep their intents, so that a resume polls them (and
   * uploads the sets not yet started). No later set is uploaded.
   */
  readonly interrupted: () => boolean;
}

export function reuploader(deps: ReuploadDeps): Reuploader {
  let recorded: BulkSubImport[] | undefined;
  const used = new Set<number>();
  let interrupted = false;

  /** The first recorded set with these positions not yet matched in this run (a set asked twice matches two records). */
  const recordedSet = (positions: readonly number[]): BulkSubImport | undefined => {
    recorded ??= [...deps.chunks.subImportsOf(deps.chunk)];
    const found = recorded.find((r) => !used.has(r.sub) && samePositions(r.positions, positions));
    if (found !== undefined) used.add(found.sub);
    return found;
  };

  const noted = (attempt: WaitedAttempt): ImportAttempt => {
    if (attempt.stopped === true) interrupted = true;
    return attempt;
  };

  async function uploadAndWait(positions: readonly number[]): Promise<ImportAttempt> {
    if (interrupted)
      return { kind: 'given_up', message: 'not uploaded again: the run was interrupted', importId: undefined };
    let known: BulkSubImport | undefined;
    try {
      known = recordedSet(positions);
    } catch (error) {
      return notUploaded(deps.ledgerBroke(error));
    }
    // Started before a crash and its id recorded: poll it, never upload the same rows again.
    if (known?.importId != null) return noted(await deps.waitFor(known.importId));

    const sub = deps.subFile();
    const gone = await cutSubChunk(deps.file, positions, sub);
    if (gone !== undefined) {
      await rm(sub, { force: true }).catch(() => undefined);
      return gone;
    }
    try {
      return await uploadSet(positions, known, sub);
    } finally {
      // Read only by its own upload: a resume cuts the set again from the chunk file.
      await rm(sub, { force: true }).catch(() => undefined);
    }
  }

  async function uploadSet(
    positions: readonly number[],
    known: BulkSubImport | undefined,
    sub: string,
  ): Promise<ImportAttempt> {
    let number: number;
    try {
      // The set's rows are committed before its upload leaves.
      number = known?.sub ?? deps.chunks.recordSubImport(deps.chunk, positions);
    } catch (error) {
      return notUploaded(deps.ledgerBroke(error));
    }
    const attempt = await deps.upload(sub, (importId) => {
      try {
        deps.chunks.recordSubImportId(number, importId);
      } catch (error) {
        deps.ledgerBroke(error);
      }
    });
    if (attempt === 'not_sent') {
      // The run stopped: the rows keep their intents and a resume uploads this set (recorded without an id).
      interrupted = true;
      return notUploaded(deps.stopReason() ?? 'the run stopped');
    }
    return noted(attempt);
  }

  return { uploadAndWait, interrupted: () => interrupted };
}

/** Writes the set's rows from the chunk file to `sub`; answers why not when the chunk file is gone. */
async function cutSubChunk(
  file: string,
  positions: readonly number[],
  sub: string,
): Promise<ImportAttempt | undefined> {
  try {
    await access(file);
    await writeSubChunk(file, positions, sub);
    return undefined;
  } catch (error) {
    return {
      kind: 'given_up',
      message: `the chunk file to upload again is gone: ${(error as Error).message}`,
      importId: undefined,
    };
  }
}

function notUploaded(why: string): ImportAttempt {
  return { kind: 'given_up', message: `not uploaded again: ${why}`, importId: undefined };
}

function samePositions(a: readonly number[], b: readonly number[]): boolean {
  return a.length === b.length && a.every((p, i) => p === b[i]);
}
