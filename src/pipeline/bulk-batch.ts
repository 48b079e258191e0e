/**
 * A batch of a bulk stage: the chunk being filled (its rows, their keys, its chunk file), or the
 * rows of a chunk a killed run recorded with its import id, which join it again on a resume. Each
 * row waits as a member of its batch until the batch's import is settled. Also here: the names of
 * a stage's chunk files (`ChunkFileNames`) and recording a closed chunk in the ledger
 * (`recordBatch`: its rows, then their intents, before its upload).
 */
import { randomBytes } from 'node:crypto';
import { existsSync, readdirSync, rmSync } from 'node:fs';
import { basename, join } from 'node:path';
import { createChunkFileWriter, type ChunkFileWriter } from '../bulk/chunk-file.js';
import type { BulkChunkRecord } from '../ledger/bulk-chunks.js';
import type { LedgerEntry, OutboxKey } from '../ledger/index.js';
import type { BulkDeps } from './bulk-deps.js';
import type { Settled } from './report-window.js';
import { putBack } from './send-row.js';
import type { SendableRow, StageInfo } from './stage-strategy.js';

/**
 * What a chunk keeps of a row until its import is settled: its report line's names, its CSV
 * fields (for the rejects file), its payload (the cascade's identity) and its sync key. Not the
 * request or the rest of the planned row: two chunks' rows are held at once (see `holds` in bulk-strategy.ts).
 */
export interface HeldRow {
  readonly file: string;
  readonly line: number;
  readonly key: string;
  readonly fields: readonly string[];
  readonly payload: Readonly<Record<string, unknown>>;
  readonly sync: OutboxKey | undefined;
  /** What the ledger said of the row before this run sent it (a row resent with --resend-unknown): put back if the upload does not leave. */
  readonly before: LedgerEntry | undefined;
}

export interface Member {
  readonly row: HeldRow;
  readonly position: number;
  readonly resolve: (s: Settled) => void;
}

export interface FreshBatch {
  readonly kind: 'fresh';
  readonly file: string;
  readonly writer: ChunkFileWriter;
  readonly members: Member[];
  readonly keys: Set<string>;
  readonly keyList: (string | undefined)[];
  done?: Promise<void>;
  /** Resolved when the batch is closed (then `done` is set): rows waiting for a chunk still filling. */
  closed?: { readonly promise: Promise<void>; readonly resolve: () => void };
}

export interface ResumedBatch {
  readonly kind: 'resumed';
  readonly record: BulkChunkRecord;
  readonly members: Member[];
  done?: Promise<void>;
  /** As a fresh batch's: rows waiting for the recorded chunk's batch to close. */
  closed?: { readonly promise: Promise<void>; readonly resolve: () => void };
  /** The record's keys, as a set, made when first asked. */
  keySet?: Set<string>;
}

export type Batch = FreshBatch | ResumedBatch;

/** The names of a stage's chunk files, and of the sub-chunk files cut from them. */
export class ChunkFileNames {
  #files = 0;
  // This process's chunk files have their own names: a resume's new chunk never overwrites the
  // file of a chunk the killed run recorded, from which that chunk's re-uploads are cut.
  readonly #session = randomBytes(4).toString('hex');

  readonly #dir: string;
  readonly #stageIndex: number;
  readonly #runId: string;

  constructor(dir: string, stageIndex: number, runId: string) {
    this.#dir = dir;
    this.#stageIndex = stageIndex;
    this.#runId = runId;
  }

  chunk(): string {
    const number = String(++this.#files).padStart(5, '0');
    return join(this.#dir, `${this.#stageIndex}-${number}-${this.#runId}-${this.#session}.csv`);
  }

  subChunkOf(file: string): string {
    return join(this.#dir, `${basename(file, '.csv')}-${this.#session}-${++this.#files}.csv`);
  }
}

/**
 * Deletes the files of a stage that a resume never reads: the chunk a killed run was filling (its
 * rows were never recorded, so a resume reads them again into new chunks) and the re-upload files
 * a killed run had cut (each is read only by its own upload; a resume cuts the set again from its
 * chunk's file). They hold row data. A recorded chunk's own file stays: its re-uploads are cut
 * from it. Called before this process writes any file of the stage.
 */
export function removeUnrecordedChunkFiles(dir: string, stageIndex: number, recorded: ReadonlySet<string>): void {
  if (!existsSync(dir)) return;
  const kept = new Set([...recorded].map((file) => basename(file)));
  for (const name of readdirSync(dir)) {
    if (!name.startsWith(`${stageIndex}-`) || !name.endsWith('.csv') || kept.has(name)) continue;
    rmSync(join(dir, name), { force: true });
  }
}

export function freshBatch(file: string, header: string): FreshBatch {
  return {
    kind: 'fresh',
    file,
    writer: createChunkFileWriter(file, header),
    members: [],
    keys: new Set(),
    keyList: [],
  };
}

export function resumedBatch(record: BulkChunkRecord): ResumedBatch {
  return { kind: 'resumed', record, members: [] };
}

/** Whether a row must close the chunk before it goes in: the file cannot take its line. (A key already there is sent per row: `bulk-strategy.ts`.) */
export function closesBefore(batch: FreshBatch, text: string): boolean {
  return !batch.writer.fits(text);
}

/** Adds a row to the chunk being filled; answers once the chunk's import is settled. */
export function addRow(
  batch: FreshBatch,
  row: SendableRow,
  key: string | undefined,
  text: string,
  before: LedgerEntry | undefined,
): Promise<Settled> {
  if (key !== undefined) batch.keys.add(key);
  batch.keyList.push(key);
  // Written now, in input order; the stream buffers, and the report window bounds how much.
  void batch.writer.write(text)?.catch(() => undefined);
  return member(batch, row, batch.members.length, before);
}

/**
 * Adds a row to its recorded chunk's batch, at its row in the chunk file: a row in flight at a
 * crash, or a row resent whose import the run stopped waiting for (`before`: its doubt).
 */
export function rejoin(batch: ResumedBatch, row: SendableRow, before: LedgerEntry | undefined): Promise<Settled> {
  return member(batch, row, positionIn(batch.record, row.line), before);
}

function member(batch: Batch, row: SendableRow, position: number, before: LedgerEntry | undefined): Promise<Settled> {
  return new Promise<Settled>((resolve) => {
    const held: HeldRow = {
      file: row.file,
      line: row.line,
      key: row.key,
      fields: row.fields,
      payload: row.payload,
      sync: row.sync?.key,
      before,
    };
    batch.members.push({ row: held, position, resolve });
  });
}

/** Answers every member with the line it is given. */
export function answerEach(members: readonly Member[], line: (m: Member) => Settled): void {
  for (const m of members) m.resolve(line(m));
}

/**
 * Closes a chunk's file and records the chunk, then its rows' intents (committed before the
 * upload leaves). Answers the chunk's number, or undefined when the run stopped first or the
 * ledger failed (the rows are then not sent).
 */
export async function recordBatch(
  stage: StageInfo,
  deps: Pick<BulkDeps, 'chunks' | 'ledger' | 'state'>,
  batch: FreshBatch,
): Promise<number | undefined> {
  const { chunks, ledger, state } = deps;
  try {
    await batch.writer.close();
  } catch (error) {
    // The chunk file could not be written (a full disk): the run stops (exit 3), its rows unsent.
    state.ledgerBroke(error);
    return undefined;
  }
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
    await undoIntents(stage, ledger, members);
    return undefined;
  }
}

/**
 * The chunk's upload did not leave: each row's ledger entry goes back to what it was (none; the
 * intent of a chunk whose earlier upload's answer was lost; or `unknown` for a row resent with
 * --resend-unknown, which stays in doubt), as a row sent alone does.
 */
export async function undoIntents(
  stage: StageInfo,
  ledger: BulkDeps['ledger'],
  members: readonly Member[],
): Promise<void> {
  await Promise.all(
    members.map(({ row: { line, before } }) => putBack(ledger, stage.index, line, before).catch(() => undefined)),
  );
}

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
