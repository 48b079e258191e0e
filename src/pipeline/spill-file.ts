import { closeSync, ftruncateSync, openSync, readSync, rmSync, writeSync } from 'node:fs';
import { StringDecoder } from 'node:string_decoder';

/** Records are written in blocks of about this many characters, and read back in blocks of this many bytes. */
const BLOCK_BYTES = 64 * 1024;

/**
 * A first-in, first-out queue of JSON records on disk, for lines a run holds behind a slow row:
 * appended as they settle, read back once, in the same order, when their turn to be written
 * comes. The file is created on the first record and emptied whenever every record has been
 * read (so it stays as large as the lines held at once, not as the run). Its name is removed as
 * soon as it is open, where the system allows it (POSIX), so that the system frees it however the
 * process ends, a kill -9 included; elsewhere `close` deletes it, and the next run with the same
 * path starts it anew. Its content is only ever what the report will say, which a resumed run
 * rebuilds from its ledger: a file left behind loses nothing.
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
  /** Set when the file could not take a write (a full disk): records then stay in memory. */
  #failure: Error | undefined;

  constructor(path: string) {
    this.#path = path;
  }

  /** Records appended and not yet read back. */
  get count(): number {
    return this.#count;
  }

  /**
   * Why the file stopped taking records (a full disk), or undefined. No record is lost: those the
   * file could not take, and every one after, are kept in memory and read back in order.
   */
  get failure(): Error | undefined {
    return this.#failure;
  }

  /** Bytes the file holds now (records read back included, until it starts over). */
  get bytesOnDisk(): number {
    return this.#end;
  }

  append(record: unknown): void {
    const text = `${JSON.stringify(record)}\n`;
    this.#pending.push(text);
    this.#pendingBytes += text.length;
    this.#count++;
    if (this.#pendingBytes >= BLOCK_BYTES && this.#failure === undefined) this.#flush();
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
    if (this.#readAt >= this.#end && this.#failure !== undefined) {
      // The file is read to its end; the rest never reached it.
      if (this.#pending.length === 0) throw new Error(`SpillFile: ${this.#path} ended before its records`);
      this.#carry = this.#carry.slice(this.#carryAt) + this.#pending.join('');
      this.#carryAt = 0;
      this.#pending = [];
      this.#pendingBytes = 0;
      return;
    }
    const block = Buffer.allocUnsafe(BLOCK_BYTES);
    const n = readSync(this.#fd!, block, 0, BLOCK_BYTES, this.#readAt);
    if (n === 0) throw new Error(`SpillFile: ${this.#path} ended before its records`);
    this.#readAt += n;
    this.#carry = this.#carry.slice(this.#carryAt) + this.#decoder.write(block.subarray(0, n));
    this.#carryAt = 0;
  }

  #flush(): void {
    if (this.#pending.length === 0 || this.#failure !== undefined) return;
    const bytes = Buffer.from(this.#pending.join(''), 'utf8');
    try {
      const fd = this.#open();
      // A write may take fewer bytes than asked (a full disk throws on the next one): go on until all are in.
      for (let done = 0; done < bytes.length; )
        done += writeSync(fd, bytes, done, bytes.length - done, this.#end + done);
    } catch (error) {
      // The records stay in memory (`failure`); a part written past the file's end is cut off.
      this.#failure = error instanceof Error ? error : new Error(String(error));
      try {
        if (this.#fd !== undefined) ftruncateSync(this.#fd, this.#end);
      } catch {
        // Reads stop at the file's end as recorded; nothing past it is read.
      }
      return;
    }
    this.#end += bytes.length;
    this.#pending = [];
    this.#pendingBytes = 0;
  }

  #open(): number {
    if (this.#fd !== undefined) return this.#fd;
    this.#fd = openSync(this.#path, 'w+');
    try {
      rmSync(this.#path);
    } catch {
      // Windows keeps an open file's name: `close` deletes it.
    }
    return this.#fd;
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
