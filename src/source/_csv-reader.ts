import { open, type FileHandle } from 'node:fs/promises';
import { basename } from 'node:path';
import type { Delimiter } from '../config/mapping-schema.js';
import { SourceError } from '../errors.js';
import type { CsvError } from 'csv-parse';
import { createCsvCore, type CsvCore } from './_csv-core.js';
import { detectDelimiter } from './_detect-delimiter.js';
import { createTranscoder, resolveEncoding, Undecodable, type ResolvedEncoding, type Transcoder } from './_encoding.js';
import { validateHeader } from './_header.js';
import { locateUndecodable } from './_locate-undecodable.js';
import { sniffMismatch, SNIFF_BYTES } from './_sniff.js';
import { RecordBounds } from './_record-bounds.js';
import { recordLengthMessage } from './_record-length.js';
import { rowValuesFor, type RowBuilder } from './_row-values.js';
import type { SourceItem } from './source-item.js';

/** Bytes read from the file at a time: enough to amortise a read, small enough to stay streaming. */
const CHUNK_BYTES = 64 * 1024;
/** `sep=;` and its line break: the first line Excel writes to name the delimiter. */
const SEP_LINE = /^sep=([^\r\n"])(?:\r\n|\n|\r)/;
const SEP_LINE_BYTES = 8;
/** `auto` looks this far for the end of the header line before it decides on what it has. */
const HEADER_SCAN_BYTES = 1024 * 1024;
/**
 * A record longer than this is reported instead of parsed. csv-parse holds a record in memory
 * until it ends, and a quote left open early in a big file would make the rest of the file one
 * record: this bound keeps the reader streaming whatever the file holds.
 */
const MAX_RECORD_BYTES = 16 * 1024 * 1024;

/** Tuning for tests: small values put every case at a chunk edge or over the record bound. */
export interface ReaderTuning {
  /** Default 64 KiB. */
  readonly chunkBytes?: number;
  /** Default 16 MiB; checked per chunk, so a record is cut once it is still open after this many bytes. */
  readonly maxRecordBytes?: number;
}

/** A quote error csv-parse reported; it belongs to the record whose bytes contain `bytes`. */
interface Skip {
  readonly message: string;
  readonly bytes: number;
  readonly fields: readonly string[];
}

/** A record over MAX_RECORD_BYTES: csv-parse was dropped, RecordBounds looks for its end. */
interface Overlong {
  /** csv-parse's first error inside it, if it found one before it was dropped. */
  readonly message: string | undefined;
  readonly fields: readonly string[];
}

const DONE: IteratorReturnResult<undefined> = Object.freeze({ done: true, value: undefined });
const noop = (): void => {};

/**
 * file → transcoder (validates, yields UTF-8) → RecordBounds (start lines, record ends) and the
 * csv-parse core (fields, errors) side by side → items. Records are paired by their end offset:
 * csv-parse tells where each record it pushes ends; a record of RecordBounds that ends before it
 * is one csv-parse skipped for a quote error, and becomes a `malformed` item. So every record
 * yields exactly one item, in order, whatever the errors.
 *
 * Work is pulled: a chunk is read, decoded and parsed only when the consumer has taken every item
 * of the previous one.
 */
export class CsvReader implements AsyncIterator<SourceItem> {
  header: readonly string[] = [];
  delimiter = ',';

  private readonly name: string;
  private core: CsvCore | undefined;
  /** Offset (in fed bytes) at which the current core started: its `info.bytes` count from there. */
  private coreBase = 0;
  private fed = 0;
  private overlong: Overlong | undefined;
  private bounds = new RecordBounds(0x2c);
  private values: RowBuilder = () => ({});
  private width = 0;
  private headerSeen = false;
  /** Records of `bounds` already turned into items (or the header). */
  private taken = 0;
  private readonly skips: Skip[] = [];
  private out: SourceItem[] = [];
  /** Fed bytes still needed for the raw text of a record not yet taken (see `rawText`). */
  private kept: { readonly at: number; readonly bytes: Buffer }[] = [];
  private outPos = 0;
  private fileEnded = false;
  private parsed = false;
  private closed = false;
  private iterated = false;

  private constructor(
    private readonly path: string,
    private readonly file: FileHandle,
    private readonly encoding: ResolvedEncoding,
    private readonly transcoder: Transcoder,
    private readonly chunkBytes: number,
    private readonly maxRecordBytes: number,
  ) {
    this.name = basename(path);
  }

  static async open(
    path: string,
    encodingName: string,
    delimiter: Delimiter,
    tuning: ReaderTuning = {},
  ): Promise<CsvReader> {
    const encoding = resolveEncoding(encodingName);
    if (encoding === undefined) {
      throw new SourceError(
        'CSV_ENCODING',
        `${path}: unknown encoding ${JSON.stringify(encodingName)} (use an iconv-lite name such as utf-8, utf-16le, windows-1250, latin1)`,
      );
    }
    let file: FileHandle;
    try {
      file = await open(path, 'r');
    } catch (error) {
      throw new SourceError('CSV_READ', `${path}: ${ioReason(error, 'cannot open the file')}`, { cause: error });
    }
    const reader = new CsvReader(
      path,
      file,
      encoding,
      createTranscoder(encoding),
      tuning.chunkBytes ?? CHUNK_BYTES,
      tuning.maxRecordBytes ?? MAX_RECORD_BYTES,
    );
    try {
      await reader.sniff();
      await reader.readHeader(delimiter);
    } catch (error) {
      reader.close();
      throw error;
    }
    return reader;
  }

  iterate(): AsyncIterator<SourceItem> {
    if (this.iterated) throw new Error(`${this.name}: CsvSource.items can be iterated only once`);
    this.iterated = true;
    return this;
  }

  next(): Promise<IteratorResult<SourceItem>> {
    // The hot path: items of the chunk already parsed, no await.
    if (this.outPos < this.out.length) return Promise.resolve({ done: false, value: this.out[this.outPos++]! });
    return this.refill();
  }

  return(): Promise<IteratorResult<SourceItem>> {
    this.close();
    return Promise.resolve(DONE);
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.out = [];
    this.outPos = 0;
    // FileHandle.close waits for a read in flight; nothing useful can be done if closing fails.
    this.file.close().catch(noop);
  }

  /** A file that would decode and still be misread (see sniffMismatch) fails before its header. */
  private async sniff(): Promise<void> {
    const head = Buffer.alloc(SNIFF_BYTES);
    let bytesRead: number;
    try {
      // A read at position 0 does not move the file position the reader goes on from.
      ({ bytesRead } = await this.file.read(head, 0, SNIFF_BYTES, 0));
    } catch (error) {
      throw new SourceError('CSV_READ', `${this.path}: ${ioReason(error, 'cannot read the file')}`, { cause: error });
    }
    const problem = sniffMismatch(head.subarray(0, bytesRead), this.encoding, this.name);
    if (problem !== undefined) throw new SourceError('CSV_ENCODING', problem);
  }

  private async readHeader(delimiter: Delimiter): Promise<void> {
    const first: Buffer[] = [];
    // Excel writes `sep=;` as a first line to name the delimiter, and reads it so: the line is
    // skipped, its character is the delimiter, and the header is on line 2.
    let start = await this.nextUtf8();
    while (start !== undefined && start.length < SEP_LINE_BYTES) {
      const more = await this.nextUtf8();
      if (more === undefined) break;
      start = Buffer.concat([start, more]);
    }
    const sep = start === undefined ? null : SEP_LINE.exec(start.subarray(0, SEP_LINE_BYTES).toString('latin1'));
    let firstLine = 1;
    if (sep !== null && start !== undefined) {
      start = start.subarray(sep[0].length);
      delimiter = sep[1] as Delimiter;
      firstLine = 2;
    }
    if (start !== undefined && start.length > 0) first.push(start);
    if (delimiter === 'auto') {
      let seen = start?.length ?? 0;
      let found = detectDelimiter(first.length === 0 ? Buffer.alloc(0) : first[0]!);
      this.delimiter = found.delimiter;
      for (;;) {
        if (found.complete || seen >= HEADER_SCAN_BYTES) break;
        const bytes = await this.nextUtf8();
        if (bytes === undefined) break;
        first.push(bytes);
        seen += bytes.length;
        found = detectDelimiter(Buffer.concat(first));
        this.delimiter = found.delimiter;
      }
      if (first.length === 0) this.delimiter = ',';
    } else {
      this.delimiter = delimiter;
    }
    this.bounds = new RecordBounds(this.delimiter.charCodeAt(0), firstLine);
    this.startCore(0);
    for (const bytes of first) this.feed(bytes);
    while (!this.headerSeen && !this.parsed) await this.step();
    if (!this.headerSeen) {
      throw new SourceError(
        'CSV_READ',
        `${this.name}: the file is empty; a header line naming the columns is expected`,
      );
    }
  }

  private async refill(): Promise<IteratorResult<SourceItem>> {
    this.out.length = 0;
    this.outPos = 0;
    try {
      while (this.out.length === 0 && !this.parsed && !this.closed) await this.step();
    } catch (error) {
      this.close();
      throw error;
    }
    if (this.closed || this.out.length === 0) {
      this.close();
      return DONE;
    }
    return { done: false, value: this.out[this.outPos++]! };
  }

  /** Read, decode and parse one chunk (or the end of the file). */
  private async step(): Promise<void> {
    const bytes = await this.nextUtf8();
    if (this.closed) return;
    if (bytes === undefined) this.finish();
    else this.feed(bytes);
  }

  private startCore(base: number): void {
    this.core = createCsvCore({ delimiter: this.delimiter, onSkip: (error) => this.onSkip(this.withColumn(error)) });
    this.coreBase = base;
  }

  private feed(bytes: Buffer): void {
    const from = this.fed;
    this.fed += bytes.length;
    this.kept.push({ at: from, bytes });
    this.bounds.scan(bytes);
    if (this.overlong === undefined) this.parse(bytes);
    else this.resume(bytes, from);
    const open = this.bounds.openRecord;
    if (this.overlong === undefined && open !== undefined && this.fed - open.offset > this.maxRecordBytes)
      this.abandon(open.line);
    this.compact();
  }

  private parse(bytes: Buffer | undefined): void {
    const error = this.core!.parse(bytes, bytes === undefined, this.onRecord, noop);
    if (error !== undefined) throw new SourceError('CSV_READ', `${this.name}: ${error.message}`, { cause: error });
  }

  private finish(): void {
    this.bounds.finish();
    if (this.overlong === undefined) this.parse(undefined);
    // What is left was never pushed: a record with a quote error at the end (an unclosed quote
    // swallows the rest of the file: one item, reported where it starts).
    while (this.taken < this.bounds.ends.length) {
      if (this.overlong !== undefined) this.endOverlong(this.taken++);
      else this.taken = this.skipped(this.taken);
    }
    this.compact();
    this.parsed = true;
  }

  /** The record under way is over the bound: report what came before, drop csv-parse's copy. */
  private abandon(line: number): void {
    // csv-parse lags the fed bytes by 3 at most: every record that ended before this one has been
    // through it, and those it did not push were skipped.
    while (this.taken < this.bounds.ends.length) this.taken = this.skipped(this.taken);
    const first = this.skips[0];
    this.overlong = { message: first?.message, fields: first?.fields ?? [...this.core!.state.record] };
    this.skips.length = 0;
    this.core = undefined;
    if (!this.headerSeen)
      throw new SourceError(
        'CSV_READ',
        `${this.name} line ${line}: the header cannot be read: ${this.overlongReason(line, 0)}`,
      );
  }

  /** While a record is over the bound, only RecordBounds reads; once it ends, a new core reads on. */
  private resume(bytes: Buffer, from: number): void {
    if (this.taken >= this.bounds.ends.length) return;
    const end = this.bounds.ends[this.taken]!;
    this.endOverlong(this.taken++);
    this.startCore(end);
    if (end - from < bytes.length) this.parse(bytes.subarray(end - from));
  }

  private endOverlong(k: number): void {
    const overlong = this.overlong!;
    const line = this.bounds.lines[k]!;
    const reason =
      overlong.message === undefined
        ? this.overlongReason(line, this.bounds.unclosedQuoteLine)
        : relined(overlong.message, this.bounds.problemLines[k]!);
    this.out.push({ kind: 'malformed', line, message: this.malformed(k, reason), fields: overlong.fields });
    this.overlong = undefined;
  }

  /** csv-parse's words for what it would have said (CSV_QUOTE_NOT_CLOSED, CSV_MAX_RECORD_SIZE). */
  private overlongReason(line: number, unclosedQuoteLine: number): string {
    return unclosedQuoteLine > 0
      ? `Quote Not Closed: the parsing is finished with an opening quote at line ${unclosedQuoteLine}`
      : `Max Record Size: record exceed the maximum number of tolerated bytes of ${this.maxRecordBytes} on line ${line}`;
  }

  private compact(): void {
    this.bounds.drop(this.taken);
    this.taken = 0;
    // Keep only the bytes from the first record not yet taken (none while a record is over the bound).
    const need =
      this.overlong !== undefined ? this.fed : (this.bounds.starts[0] ?? this.bounds.openRecord?.offset ?? this.fed);
    let drop = 0;
    while (drop < this.kept.length && this.kept[drop]!.at + this.kept[drop]!.bytes.length <= need) drop++;
    if (drop > 0) this.kept.splice(0, drop);
  }

  /** Record k's text as the file has it, without its line break; `undefined` if its bytes were let go. */
  private rawText(k: number): string | undefined {
    const start = this.bounds.starts[k];
    const end = this.bounds.ends[k];
    if (start === undefined || end === undefined || this.kept.length === 0 || this.kept[0]!.at > start)
      return undefined;
    const parts: Buffer[] = [];
    for (const { at, bytes } of this.kept) {
      if (at >= end) break;
      if (at + bytes.length <= start) continue;
      parts.push(bytes.subarray(Math.max(0, start - at), Math.min(bytes.length, end - at)));
    }
    return Buffer.concat(parts)
      .toString('utf8')
      .replace(/(?:\r\n|\n|\r)$/, '');
  }

  /** csv-parse pushes a record: pair it with its bounds, first reporting the ones it skipped. */
  private readonly onRecord = (record: string[]): void => {
    const end = this.coreBase + this.core!.info.bytes;
    const ends = this.bounds.ends;
    let k = this.taken;
    while (ends[k]! < end) k = this.skipped(k);
    if (ends[k] !== end) {
      throw new Error(
        `${this.name}: the CSV reader lost track of records near byte ${end} of the decoded text (a bug: please report it with the file)`,
      );
    }
    const line = this.bounds.lines[k]!;
    this.taken = k + 1;
    if (!this.headerSeen) {
      this.acceptHeader(record, line);
      return;
    }
    this.out.push(
      record.length === this.width
        ? { kind: 'row', line, values: this.values(record), fields: record }
        : {
            kind: 'malformed',
            line,
            message: `${this.name} line ${line}: ${recordLengthMessage(this.header, record.length)}`,
            fields: record,
          },
    );
  };

  private acceptHeader(record: string[], line: number): void {
    validateHeader(record, `${this.name} line ${line}`);
    this.header = record;
    this.width = record.length;
    this.values = rowValuesFor(record);
    this.headerSeen = true;
  }

  /**
   * csv-parse numbers fields from 0 (`a quote is found on field 2` is the third column): say it
   * as a user counts, with the header's name when there is one. A closing-quote error names no
   * field at all: it gets the column too.
   */
  private withColumn(error: CsvError): string {
    const index = (error as { column?: unknown }).column;
    if (typeof index !== 'number') return error.message;
    const name = this.headerSeen ? this.header[index] : undefined;
    const column = `column ${index + 1}${name === undefined ? '' : ` (${JSON.stringify(name)})`}`;
    if (/ on field \S+ at line/.test(error.message))
      return error.message.replace(/ on field \S+ at line/, ` in ${column} at line`);
    return error.message.replace(
      /^Invalid Closing Quote: (.*?) at line/,
      `Invalid Closing Quote: $1 in ${column} at line`,
    );
  }

  private onSkip(message: string): void {
    const core = this.core!;
    this.skips.push({ message, bytes: this.coreBase + core.info.bytes, fields: [...core.state.record] });
  }

  /** Record k of `bounds` was skipped by csv-parse: one malformed item with its first error. */
  private skipped(k: number): number {
    const end = this.bounds.ends[k]!;
    const line = this.bounds.lines[k]!;
    let first: Skip | undefined;
    while (this.skips.length > 0 && this.skips[0]!.bytes < end) {
      const skip = this.skips.shift()!;
      first ??= skip;
    }
    const reason =
      first === undefined ? 'the record cannot be parsed' : relined(first.message, this.bounds.problemLines[k]!);
    if (!this.headerSeen)
      throw new SourceError('CSV_READ', `${this.name} line ${line}: the header cannot be read: ${reason}`);
    const raw = this.rawText(k);
    this.out.push({
      kind: 'malformed',
      line,
      message: this.malformed(k, reason),
      fields: first?.fields ?? [],
      ...(raw !== undefined && { raw }),
    });
    return k + 1;
  }

  /**
   * `file line 7: reason`. A quote error can make the parser read the lines after it as part of
   * the same record: then the message names them all, so that no line of the file goes unmentioned.
   */
  private malformed(k: number, reason: string): string {
    const line = this.bounds.lines[k]!;
    const last = this.bounds.lastLines[k]!;
    if (last <= line) return `${this.name} line ${line}: ${reason}`;
    return `${this.name} lines ${line}–${last}: ${reason} (the parser read lines ${line}–${last} as this one record: check its quotes)`;
  }

  /** The next UTF-8 bytes for the parser, `undefined` at the end of the file. */
  private async nextUtf8(): Promise<Buffer | undefined> {
    while (!this.fileEnded) {
      const raw = await this.readRaw();
      let bytes: Buffer;
      try {
        if (raw === undefined) {
          this.fileEnded = true;
          bytes = this.transcoder.end();
        } else {
          bytes = this.transcoder.write(raw);
        }
      } catch (error) {
        if (error instanceof Undecodable) throw await this.encodingError(error);
        throw error;
      }
      if (bytes.length > 0) return bytes;
    }
    return undefined;
  }

  private async readRaw(): Promise<Buffer | undefined> {
    if (this.closed) return undefined;
    // A fresh buffer each time: csv-parse keeps a slice of the previous chunk.
    const buffer = Buffer.allocUnsafe(this.chunkBytes);
    let bytesRead: number;
    try {
      ({ bytesRead } = await this.file.read(buffer, 0, this.chunkBytes, null));
    } catch (error) {
      if (this.closed) return undefined;
      throw new SourceError('CSV_READ', `${this.path}: ${ioReason(error, 'cannot read the file')}`, { cause: error });
    }
    if (bytesRead === 0) return undefined;
    return bytesRead < this.chunkBytes ? buffer.subarray(0, bytesRead) : buffer;
  }

  private async encodingError(error: Undecodable): Promise<SourceError> {
    const label = this.encoding.label;
    const fix = "Set the mapping's source.encoding to the file's real encoding.";
    if (error.bom !== undefined) {
      return new SourceError(
        'CSV_ENCODING',
        `${this.name} starts with a ${error.bom} byte order mark, but its encoding is set to ${label}. Set the mapping's source.encoding to ${error.bom.toLowerCase()}.`,
      );
    }
    const at = await locateUndecodable(this.path, this.encoding).catch(() => undefined);
    if (at === undefined) return new SourceError('CSV_ENCODING', `${this.name} is not valid ${label}. ${fix}`);
    const shown = at.bytes === undefined ? 'bytes' : `${at.bytes.length === 1 ? 'byte' : 'bytes'} ${hex(at.bytes)}`;
    const where = at.offset === undefined ? `at line ${at.line}` : `at line ${at.line} (byte offset ${at.offset})`;
    const why =
      this.encoding.kind === 'iconv' && this.encoding.singleByte
        ? 'is not defined in that code page'
        : 'cannot be decoded';
    const what = `${shown} ${where} ${why}`;
    return new SourceError('CSV_ENCODING', `${this.name} is not valid ${label}: ${what}. ${fix}`);
  }
}

/** csv-parse counts lines its own way (where a record ends, a quoted CRLF twice): put ours in. */
function relined(message: string, line: number): string {
  return line > 0 ? message.replace(/\b(at|on) line \d+/, `$1 line ${line}`) : message;
}

function hex(bytes: Uint8Array): string {
  return Array.from(bytes, (b) => `0x${b.toString(16).toUpperCase().padStart(2, '0')}`).join(' ');
}

function ioReason(error: unknown, fallback: string): string {
  const code = (error as { code?: unknown }).code;
  if (code === 'ENOENT') return 'file not found';
  if (code === 'EACCES' || code === 'EPERM') return 'permission denied';
  if (code === 'EISDIR') return 'is a directory, not a file';
  return `${fallback} (${error instanceof Error ? error.message : String(error)})`;
}
