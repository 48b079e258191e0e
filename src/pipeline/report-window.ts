import type { ReportLine } from '../report/report-line.js';
import type { CascadeEffect } from './cascade.js';
import { SpillFile } from './spill-file.js';

/**
 * A report line, and what it tells the cascade. The effect is applied when the line is written,
 * in input order, as a resumed run replays the ledger: which of two rows of one key answered
 * first must not decide whether their children are sent.
 */
export interface Settled {
  readonly line: ReportLine;
  readonly effect?: CascadeEffect | undefined;
}

export const settled = (line: ReportLine, effect?: CascadeEffect): Settled => ({ line, effect });

/** A line that settles later (a row in flight); `done` is set once it has. */
class Waiting {
  done: Settled | undefined;
  constructor(readonly answer: Promise<Settled>) {}
}

/** Consecutive settled lines that wait in the spill file; `count` of them are left. */
class Spilled {
  constructor(public count: number) {}
}

/** Settled lines held beyond `inMemory` go to `file` (see `SpillFile`). */
export interface SpillOptions {
  readonly inMemory: number;
  readonly file: string;
  /** Told once when the file cannot take a line (a full disk); the lines stay in memory, none lost. */
  readonly onFailure?: (error: Error) => void;
}

/**
 * Lines wait here until every earlier line is written, so the report keeps input order while
 * rows are answered in any order. Two bounds, because the two kinds of line cost differently:
 * - `size` counts the lines still waiting for an answer (rows in flight, or held by a batching
 *   strategy): a bulk chunk fills up to its row count however many lines already settled
 *   (unchanged, skipped, invalid) sit between its rows.
 * - `held` counts every line not yet written: settled lines are small (a line and an effect
 *   that keeps only entity refs) but one slow row can hold many of them back.
 * Either bound reached makes the window `full`: the stage writes the oldest line, after asking a
 * batching strategy to settle it when it still waits. With `spill`, settled lines held beyond
 * `spill.inMemory` wait on disk, so `held` can be large (a bulk chunk that fills only when few
 * rows change) without the heap growing with it.
 */
export class ReportWindow {
  /** Lines not yet written, oldest first from `#head` (a head index: shifting a long array costs). */
  #lines: (Settled | Waiting | Spilled | undefined)[] = [];
  #head = 0;
  /** Lines not yet written, in memory or spilled. */
  #count = 0;
  #waiting = 0;
  readonly #size: number;
  readonly #held: number;
  readonly #write: (s: Settled) => Promise<void>;
  readonly #spillAfter: number;
  readonly #spill: SpillFile | undefined;
  #onSpillFailure: ((error: Error) => void) | undefined;

  /**
   * `write` gets each line in input order, once every line before it is written. `size` bounds
   * the lines waiting for an answer, `held` (default `size`) every line not yet written.
   */
  constructor(size: number, write: (s: Settled) => Promise<void>, held: number = size, spill?: SpillOptions) {
    this.#size = size;
    this.#held = Math.max(held, size);
    this.#write = write;
    this.#spillAfter = spill?.inMemory ?? Number.POSITIVE_INFINITY;
    this.#spill = spill === undefined ? undefined : new SpillFile(spill.file);
    this.#onSpillFailure = spill?.onFailure;
  }

  get full(): boolean {
    return this.#waiting >= this.#size || this.#count >= this.#held;
  }

  /** Lines not yet written (settled or not). */
  get length(): number {
    return this.#count;
  }

  /** Of those, the lines waiting on disk. */
  get spilled(): number {
    return this.#spill?.count ?? 0;
  }

  /** A line known now, or one that settles later (a row in flight). */
  push(line: Settled | Promise<Settled>): void {
    this.#count++;
    if (!(line instanceof Promise)) {
      if (this.#waiting === 0) this.#lines.push(line);
      else if (this.#spill === undefined || this.#count - this.#spill.count <= this.#spillAfter)
        this.#lines.push(compact(line));
      else this.#spillLine(line);
      return;
    }
    const waiting = new Waiting(line);
    this.#waiting++;
    this.#lines.push(waiting);
    void line.then(
      (s) => {
        waiting.done = compact(s);
        this.#waiting--;
      },
      () => {
        // Rethrown to the stage when this line's turn to be written comes.
        this.#waiting--;
      },
    );
  }

  /** Whether the oldest line has settled (writing it does not wait for a row in flight). */
  get headReady(): boolean {
    const head = this.#lines[this.#head];
    return head !== undefined && (!(head instanceof Waiting) || head.done !== undefined);
  }

  /** Writes the oldest line, waiting for it to settle. */
  async writeHead(): Promise<void> {
    const head = this.#lines[this.#head];
    if (head === undefined) return;
    this.#count--;
    if (head instanceof Spilled) {
      // One line of the segment; the segment stays at the head until its last line is read.
      head.count--;
      const line = this.#spill!.next() as Settled;
      this.#toldFailure();
      if (head.count === 0) this.#advance();
      await this.#write(line);
      return;
    }
    this.#advance();
    await this.#write(head instanceof Waiting ? (head.done ?? (await head.answer)) : head);
  }

  /** Writes every line. */
  async drain(): Promise<void> {
    while (this.length > 0) await this.writeHead();
  }

  /** Deletes the spill file, if any; the lines still in it are not written. */
  close(): void {
    this.#spill?.close();
  }

  /** Tells `onFailure` of a spill file that stopped taking lines, once. */
  #toldFailure(): void {
    const failure = this.#spill?.failure;
    if (failure === undefined || this.#onSpillFailure === undefined) return;
    const tell = this.#onSpillFailure;
    this.#onSpillFailure = undefined;
    tell(failure);
  }

  #advance(): void {
    this.#lines[this.#head] = undefined;
    this.#head++;
    if (this.#head >= 1024 && this.#head * 2 >= this.#lines.length) {
      this.#lines = this.#lines.slice(this.#head);
      this.#head = 0;
    }
  }

  #spillLine(line: Settled): void {
    this.#spill!.append(line);
    this.#toldFailure();
    const last = this.#lines.at(-1);
    if (last instanceof Spilled && this.#lines.length > this.#head) last.count++;
    else this.#lines.push(new Spilled(1));
  }
}

/**
 * A held line in one fixed shape: a line built by spreading (`{ ...base, status }`) costs about
 * three times as much heap as one built field by field, and a window may hold many thousands.
 */
function compact({ line: l, effect }: Settled): Settled {
  return {
    line: {
      file: l.file,
      line: l.line,
      resource: l.resource,
      key: l.key,
      status: l.status,
      http_status: l.http_status,
      id: l.id,
      message: l.message,
    },
    effect,
  };
}
