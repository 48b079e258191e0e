/**
 * The request log: one entry per API request (never the admin endpoints), in the order the
 * sandbox decided them, kept in memory (`sandbox.requests`, `GET /__sandbox/requests`) and
 * optionally appended to an NDJSON file (`--log FILE`). It never holds a header, so the
 * Authorization header (the API key) cannot leak into it.
 */
import { createWriteStream, type WriteStream } from 'node:fs';
import type { Fault } from './faults.js';

export interface RequestLogEntry {
  /** When the request arrived, ISO 8601. */
  readonly time: string;
  readonly method: string;
  /** The path as received, percent-encoding and query string kept: `/api/public/events/?page=2`. */
  readonly path: string;
  /** The status answered; null when the connection was dropped without an answer (`--drop-rate`). */
  readonly status: number | null;
  /** Whether the request changed the sandbox's records (a write that took effect, whatever the client saw). */
  readonly applied: boolean;
  /** The parsed JSON body; null when there was none or it was not JSON. */
  readonly body: unknown;
  /** The fault injected into this request, if any. */
  readonly fault: Fault | null;
  /**
   * Set on the upload of a bulk CSV import (its id, when one was created) and on each row the
   * import then applies or refuses: those rows are logged with method `IMPORT`, `status` 200 or
   * 400, `applied`, and `body` the row's fields, so a test counts a row's effects on both paths.
   */
  readonly importId?: string;
  /** `IMPORT` entries: the row in the file (header = row 1). */
  readonly row?: number;
}

/** Lines are written in batches so that a busy sandbox does one write per turn of the event loop, not one per request. */
const FLUSH_BYTES = 64 * 1024;

export class RequestLog {
  /** Every entry since the start or the last `clear()`; the array is cleared in place, never replaced. */
  readonly entries: RequestLogEntry[] = [];
  private stream: WriteStream | undefined;
  private pending: string[] = [];
  private pendingBytes = 0;
  private scheduled = false;
  private waitingForDrain = false;

  private constructor(stream: WriteStream | undefined) {
    this.stream = stream;
  }

  /** A log kept in memory, and in `file` (truncated first) when given; fails when the file cannot be opened. */
  static async open(file?: string): Promise<RequestLog> {
    if (file === undefined) return new RequestLog(undefined);
    const stream = createWriteStream(file, { flags: 'w' });
    await new Promise<void>((resolve, reject) => {
      stream.once('open', () => resolve());
      stream.once('error', reject);
    });
    // A write error later (disk full) must not crash the sandbox: the in-memory log goes on.
    stream.on('error', () => undefined);
    return new RequestLog(stream);
  }

  add(entry: RequestLogEntry): void {
    this.entries.push(entry);
    if (this.stream === undefined) return;
    const line = `${JSON.stringify(entry)}\n`;
    this.pending.push(line);
    this.pendingBytes += line.length;
    if (this.pendingBytes >= FLUSH_BYTES) this.flush();
    else if (!this.scheduled) {
      this.scheduled = true;
      setImmediate(() => this.flush());
    }
  }

  /** Empties the in-memory log (`POST /__sandbox/reset`); lines already in the file stay. */
  clear(): void {
    this.entries.length = 0;
  }

  /** Writes what is pending and closes the file. */
  async close(): Promise<void> {
    const stream = this.stream;
    if (stream === undefined) return;
    this.waitingForDrain = false;
    this.flush();
    this.stream = undefined;
    await new Promise<void>((resolve) => stream.end(resolve));
  }

  private flush(): void {
    this.scheduled = false;
    if (this.stream === undefined || this.waitingForDrain || this.pending.length === 0) return;
    const chunk = this.pending.join('');
    this.pending = [];
    this.pendingBytes = 0;
    if (!this.stream.write(chunk)) {
      // Back-pressure: keep batching in memory until the file catches up.
      this.waitingForDrain = true;
      this.stream.once('drain', () => {
        this.waitingForDrain = false;
        this.flush();
      });
    }
  }
}
