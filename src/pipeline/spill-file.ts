import { closeSync, ftruncateSync, openSync, readSync, rmSync, writeSync } from 'node:fs';
import { StringDecoder } from 'node:string_decoder';

/** Records are written in blocks of about this many bytes, and read back in blocks of this size. */
const BLOCK_BYTES = 64 * 1024;

/**
 * A first-in, first-out queue of JSON records on disk, for lines a run holds behind a slow row:
 * appended as they settle, read back once, in the same order, when their turn to be written
 * comes. The file is created on the first record, emptied whenever every record has been read
 * (so it stays as large as the lines held at once, not as the run), and deleted by `close`. Its
 * content is only ever what the report will say, which the run can rebuild from its ledger: a
 * crash that leaves it behind loses nothing, and the next run with the same path starts it anew.
 */
export class SpillFile {
  readonly #path: string;
  #fd: number | undefined;
  /** Appended text not yet written to the file. */
  #pending: string[] = [];
  #pendingBytes = 0;
  /** Where the next block is read from, and where the file ends. */
  #readAt = 0;
  #end = 0;
  readonly #decoder = new StringDecoder('utf8');
  /** Text read from the file and not yet returned, from `#carryAt`. */
  #carry = '';
  #carryAt = 0;
  /** Records appended and not yet read back. */
  #count = 0;

  constructor(path: string) {
    this.#path = path;
  }

  get count(): number {
    return this.#count;
  }

  append(record: unknown): void {
    const text = `${JSON.stringify(record)}\n`;
    this.#pending.push(text);
    this.#pendingBytes += text.length;
    this.#count++;
    if (this.#pendingBytes >= BLOCK_BYTES) this.#flush();
  }

  /** The oldest record not yet read back. Throws when there is none. */
  next(): unknown {
    if (this.#count === 0) throw new Error('SpillFile: no record left to read');
    for (;;) {
      const newline = this.#carry.indexOf('\n', this.#carryAt);
      if (newline >= 0) {
        const text = this.#carry.slice(this.#carryAt, newline);
        this.#carryAt = newline + 1;
        this.#count--;
        if (this.#count === 0) this.#restart();
        return JSON.parse(text) as unknown;
      }
      this.#readBlock();
    }
  }

  /** Deletes the file. */
  close(): void {
    if (this.#fd !== undefined) closeSync(this.#fd);
    this.#fd = undefined;
    rmSync(this.#path, { force: true });
  }

  #readBlock(): void {
    if (this.#readAt >= this.#end) this.#flush();
    const block = Buffer.allocUnsafe(BLOCK_BYTES);
    const n = readSync(this.#fd!, block, 0, BLOCK_BYTES, this.#readAt);
    if (n === 0) throw new Error(`SpillFile: ${this.#path} ended before its records`);
    this.#readAt += n;
    this.#carry = this.#carry.slice(this.#carryAt) + this.#decoder.write(block.subarray(0, n));
    this.#carryAt = 0;
  }

  #flush(): void {
    if (this.#pending.length === 0) return;
    this.#fd ??= openSync(this.#path, 'w+');
    const bytes = Buffer.from(this.#pending.join(''), 'utf8');
    writeSync(this.#fd, bytes, 0, bytes.length, this.#end);
    this.#end += bytes.length;
    this.#pending = [];
    this.#pendingBytes = 0;
  }

  /** Every record was read back: the file starts over, empty. */
  #restart(): void {
    if (this.#fd !== undefined) ftruncateSync(this.#fd, 0);
    this.#readAt = 0;
    this.#end = 0;
    this.#carry = '';
    this.#carryAt = 0;
    this.#pending = [];
    this.#pendingBytes = 0;
  }
}
