/**
 * The re-uploads of a bisection, recorded in the ledger's bulk tables (a real SQLite file): each
 * set's rows before its upload, its import id after the answer; a second run over the same ledger
 * (a resume) polls the sets with an id and uploads only those without.
 */
import { readFileSync, renameSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import type { ImportAttempt } from '../../src/bulk/settle-chunk.js';
import { openBulkChunks, type BulkChunks } from '../../src/ledger/bulk-chunks.js';
import { ledgerFile } from '../../src/ledger/run-dirs.js';
import { reuploader, type WaitedAttempt } from '../../src/pipeline/bulk-reupload.js';
import { tmpTree } from '../helpers/tmp.js';

const opened: BulkChunks[] = [];
afterEach(() => {
  for (const c of opened.splice(0)) c.close();
});

/** A run folder with an (empty) ledger file and a chunk of 6 rows recorded in it. */
function runFolder() {
  const dir = tmpTree({ 'chunk.csv': 'custom_id\nA\nB\nC\nD\nE\nF\n' });
  new Database(ledgerFile(dir)).close();
  const chunks = openBulkChunks(dir, dir);
  opened.push(chunks);
  const chunk = chunks.recordChunk(0, join(dir, 'chunk.csv'), [2, 3, 4, 5, 6, 7], ['A', 'B', 'C', 'D', 'E', 'F']);
  return { dir, chunks, chunk };
}

/** A service that ends each import at once; `lose` drops the answer of the uploads it names (1-based). */
function service(
  dir: string,
  chunks: BulkChunks,
  chunk: number,
  options: { lose?: number[]; stopPolls?: boolean } = {},
) {
  const events: string[] = [];
  let uploads = 0;
  let files = 0;
  const ended = (importId: string): WaitedAttempt => ({
    kind: 'ended',
    importId,
    report: {
      importId,
      status: 'finished',
      state: 'finished',
      rowsWithErrors: [],
      totalCount: 1,
      succeeded: 1,
      failed: 0,
    },
  });
  const again = reuploader({
    chunks,
    chunk,
    file: join(dir, 'chunk.csv'),
    subFile: () => join(dir, `sub-${++files}.csv`),
    async upload(file, onImportId) {
      uploads++;
      const rows = readFileSync(file, 'utf8').trim().split('\n').slice(1).join('');
      events.push(`upload ${rows}`);
      if (options.lose?.includes(uploads))
        return { kind: 'given_up', message: 'the answer was lost', importId: undefined } as const;
      const id = `imp-${rows}-${uploads}`;
      onImportId(id);
      return options.stopPolls ? { ...stoppedWait(id) } : ended(id);
    },
    async waitFor(importId) {
      events.push(`poll ${importId}`);
      return options.stopPolls ? stoppedWait(importId) : ended(importId);
    },
    ledgerBroke: (error) => String(error),
    stopReason: () => undefined,
  });
  return { events, again };
}

const stoppedWait = (importId: string): WaitedAttempt => ({
  kind: 'given_up',
  message: `stopped while waiting for import ${importId}`,
  importId,
  stopped: true,
});

const ids = (chunks: BulkChunks, chunk: number) =>
  chunks.subImportsOf(chunk).map((s) => `${s.positions.join('')}:${s.importId ?? '-'}`);

describe('bisection re-uploads in the ledger', () => {
  it('records each set before its upload and its import id after the answer', async () => {
    const { dir, chunks, chunk } = runFolder();
    const { events, again } = service(dir, chunks, chunk, { lose: [2] });
    const attempts: ImportAttempt[] = [];
    for (const set of [[0, 1], [3], [4, 5]]) attempts.push(await again.uploadAndWait(set));
    expect(events).toEqual(['upload AB', 'upload D', 'upload EF']);
    expect(attempts.map((a) => a.kind)).toEqual(['ended', 'given_up', 'ended']);
    // The second set's answer was lost: recorded, without an import id.
    expect(ids(chunks, chunk)).toEqual(['01:imp-AB-1', '3:-', '45:imp-EF-3']);
    expect(again.interrupted()).toBe(false);
  });

  it('a resume polls the sets recorded with an import id and uploads only the one whose answer was lost', async () => {
    const { dir, chunks, chunk } = runFolder();
    const killed = service(dir, chunks, chunk, { lose: [2] });
    for (const set of [[0, 1], [3], [4, 5]]) await killed.again.uploadAndWait(set);

    const resumed = service(dir, chunks, chunk);
    for (const set of [[0, 1], [3], [4, 5], [2]]) await resumed.again.uploadAndWait(set);
    expect(resumed.events).toEqual(['poll imp-AB-1', 'upload D', 'poll imp-EF-3', 'upload C']);
    // The lost set keeps its record and gains its id; the new set is recorded before it went.
    expect(ids(chunks, chunk)).toEqual(['01:imp-AB-1', '3:imp-D-1', '45:imp-EF-3', '2:imp-C-2']);
  });

  it('a set asked twice (an import that ended without finishing, uploaded again whole) matches its two records in turn', async () => {
    const { dir, chunks, chunk } = runFolder();
    const killed = service(dir, chunks, chunk);
    await killed.again.uploadAndWait([1, 2]);
    await killed.again.uploadAndWait([1, 2]);
    const resumed = service(dir, chunks, chunk);
    for (let i = 0; i < 3; i++) await resumed.again.uploadAndWait([1, 2]);
    expect(resumed.events).toEqual(['poll imp-BC-1', 'poll imp-BC-2', 'upload BC']);
  });

  it('an interrupted wait: later sets are not uploaded, and the caller is told to keep the intents', async () => {
    const { dir, chunks, chunk } = runFolder();
    const { events, again } = service(dir, chunks, chunk, { stopPolls: true });
    expect(await again.uploadAndWait([0])).toMatchObject({ kind: 'given_up', importId: 'imp-A-1' });
    expect(again.interrupted()).toBe(true);
    expect(await again.uploadAndWait([1])).toMatchObject({ kind: 'given_up', importId: undefined });
    expect(events).toEqual(['upload A']);
    expect(ids(chunks, chunk)).toEqual(['0:imp-A-1']);
  });
});

describe('a run folder moved away (parked) and opened there', () => {
  it("finds its chunk files in their new place: a resume still cuts the chunk's re-uploads from them", () => {
    const { dir, chunks } = runFolder();
    chunks.close();
    opened.splice(0);
    const parked = join(tmpTree({}), 'parked-run');
    renameSync(dir, parked);
    const reopened = openBulkChunks(parked, tmpTree({}));
    opened.push(reopened);
    expect(reopened.chunkOf(0, 4)?.file).toBe(join(parked, 'chunk.csv'));
    expect([...reopened.recordedFiles(0)]).toEqual([join(parked, 'chunk.csv')]);
  });
});
