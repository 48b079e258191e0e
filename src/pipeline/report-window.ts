import type { ReportLine } from '../report/report-line.js';

/**
 * A report line, and what it tells the cascade. The effect runs when the line is written, in
 * input order, as a resumed run replays the ledger: which of two rows of one key answered first
 * must not decide whether their children are sent.
 */
export interface Settled {
  readonly line: ReportLine;
  readonly effect?: (() => void) | undefined;
}

export const settled = (line: ReportLine, effect?: () => void): Settled => ({ line, effect });

/**
 * Lines wait here until every earlier line is written, so the report keeps input order while
 * rows are answered in any order; the window bounds memory when one slow row holds back the ones
 * after it.
 */
export class ReportWindow {
  readonly #pending: Promise<Settled>[] = [];
  /** Lines pushed and settled (not yet written), so the stage knows whether the head is waiting. */
  readonly #ready = new WeakSet<Promise<Settled>>();
  readonly #size: number;
  readonly #write: (s: Settled) => Promise<void>;

  /** `write` gets each line in input order, once every line before it is written. */
  constructor(size: number, write: (s: Settled) => Promise<void>) {
    this.#size = size;
    this.#write = write;
  }

  get full(): boolean {
    return this.#pending.length >= this.#size;
  }

  /** A line known now, or one that settles later (a row in flight). */
  push(line: Settled | Promise<Settled>): void {
    const pending = Promise.resolve(line);
    this.#pending.push(pending);
    void pending.then(
      () => this.#ready.add(pending),
      () => undefined,
    );
  }

  /** Whether the oldest line has settled (writing it does not wait for a row in flight). */
  get headReady(): boolean {
    const head = this.#pending[0];
    return head !== undefined && this.#ready.has(head);
  }

  /** Writes the oldest line, waiting for it to settle. */
  async writeHead(): Promise<void> {
    const head = this.#pending.shift();
    if (head !== undefined) await this.#write(await head);
  }

  /** Writes every line. */
  async drain(): Promise<void> {
    while (this.#pending.length > 0) await this.writeHead();
  }
}
