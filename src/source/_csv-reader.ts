import type { Delimiter } from '../config/mapping-schema.js';
import { SourceError } from '../errors.js';
import { createCsvCore, type CsvCore } from './_csv-core.js';
import { CsvFile } from './_csv-file.js';
import { readPrelude } from './_csv-prelude.js';
import { validateHeader } from './_header.js';
import { KeptBytes } from './_kept-bytes.js';
import { malformedMessage, overlongReason, relined, withColumn } from './_malformed-messages.js';
import { RecordBounds } from './_record-bounds.js';
import { recordLengthMessage } from './_record-length.js';
import { rowValuesFor, type RowBuilder } from './_row-values.js';
import type { SourceItem } from './source-item.js';

/** Bytes read from the file at a time: enough to amortise a read, small enough to stay streaming. */
const CHUNK_BYTES = 64 * 1024;
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
 * file (`CsvFile`: validates, yields UTF-8) → RecordBounds (start lines, record ends) and the
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
  /** Whether the file began with Excel's `sep=` line (the header is then on line 2). */
  sepLine = false;

  private readonly name: string;
  private core: CsvCore | undefined;
  /** Offset (in fed bytes) at which the current core started: its `info.bytes` count from there. */
  private coreBase = 0;
  private fed = 0;
  private overlong: Overlong | undefined;
  private bounds = new RecordBounds(0x2c);
  private values: RowBuilder = () => ({});
  private width = 0;
  /** Nameless columns at the header's end (a spreadsheet's trailing delimiters): read, never mapped. */
  private unnamed = 0;
  private headerSeen = false;
  /** Records of `bounds` already turned into items (or the header). */
  private taken = 0;
  private readonly skips: Skip[] = [];
  private out: SourceItem[] = [];
  /** Fed bytes still needed for the raw text of a record not yet taken. */
  private readonly kept = new KeptBytes();
  private outPos = 0;
  private parsed = false;
  private closed = false;
  private iterated = false;

  private constructor(
    private readonly file: CsvFile,
    private readonly maxRecordBytes: number,
  ) {
    this.name = file.name;
  }

  static async open(
    path: string,
    encodingName: string,
    delimiter: Delimiter,
    tuning: ReaderTuning = {},
  ): Promise<CsvReader> {
    const file = await CsvFile.open(path, encodingName, tuning.chunkBytes ?? CHUNK_BYTES);
    const reader = new CsvReader(file, tuning.maxRecordBytes ?? MAX_RECORD_BYTES);
    try {
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
    this.file.close();
  }

  private async readHeader(delimiter: Delimiter): Promise<void> {
    const { delimiter: resolved, firstLine, first } = await readPrelude(() => this.file.nextUtf8(), delimiter);
    this.delimiter = resolved;
    this.sepLine = firstLine === 2;
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
    const bytes = await this.file.nextUtf8();
    if (this.closed) return;
    if (bytes === undefined) this.finish();
    else this.feed(bytes);
  }

  private startCore(base: number): void {
    this.core = createCsvCore({
      delimiter: this.delimiter,
      onSkip: (error) => this.onSkip(withColumn(error, this.headerSeen ? this.header : undefined), error.code),
    });
    this.coreBase = base;
  }

  private feed(bytes: Buffer): void {
    const from = this.fed;
    this.fed += bytes.length;
    this.kept.push(from, bytes);
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
        `${this.name} line ${line}: the header cannot be read: ${overlongReason(line, 0, this.maxRecordBytes)}`,
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
        ? overlongReason(line, this.bounds.unclosedQuoteLine, this.maxRecordBytes)
        : relined(overlong.message, this.bounds.problemLines[k]!);
    this.out.push({ kind: 'malformed', line, message: this.malformed(k, reason), fields: overlong.fields });
    this.overlong = undefined;
  }

  private compact(): void {
    this.bounds.drop(this.taken);
    this.taken = 0;
    // Keep only the bytes from the first record not yet taken (none while a record is over the bound).
    const need =
      this.overlong !== undefined ? this.fed : (this.bounds.starts[0] ?? this.bounds.openRecord?.offset ?? this.fed);
    this.kept.dropBefore(need);
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
    // A NUL byte is no text a CSV holds: a file padded with zeros (preallocated, or cut short by a
    // crash) would make rows of them, and a cell holding one would be sent as \u0000. The fields
    // go without them: the report's key and the rejects file get the text, not a run of zeros.
    if (record.some((field) => field.includes('\0')))
      this.out.push(
        this.malformedItem(
          k,
          'holds NUL bytes (0x00), which no text holds: the file may be damaged or cut short',
          record.map((field) => field.replaceAll('\0', '')),
        ),
      );
    else if (record.length > this.width && record.length <= this.width + this.unnamed) {
      // The cells under the header's nameless last columns: empty, as a spreadsheet's trailing
      // delimiters leave them, they are dropped; a value there belongs to no column.
      const stray = record.findIndex((field, i) => i >= this.width && field.trim() !== '');
      if (stray < 0) {
        const fields = record.slice(0, this.width);
        this.out.push({ kind: 'row', line, values: this.values(fields), fields });
      } else
        this.out.push(
          this.malformedItem(
            k,
            `field ${stray + 1} holds a value, but its column has no name in the header (a value after the last named column, ${JSON.stringify(this.header.at(-1))})`,
            record,
          ),
        );
    } else if (record.length !== this.width)
      this.out.push(this.malformedItem(k, recordLengthMessage(this.header, record.length), record));
    else this.out.push({ kind: 'row', line, values: this.values(record), fields: record });
  };

  private acceptHeader(record: string[], line: number): void {
    // Nameless columns at the end are a spreadsheet's trailing delimiters (`id;name;;`): the
    // columns before them are the header. Nameless columns between named ones are refused.
    let named = record.length;
    while (named > 0 && record[named - 1]!.trim() === '') named--;
    const header = named === 0 ? record : record.slice(0, named);
    validateHeader(header, `${this.name} line ${line}`);
    this.header = header;
    this.width = header.length;
    this.unnamed = record.length - header.length;
    this.values = rowValuesFor(header);
    this.headerSeen = true;
  }

  private onSkip(message: string, code: string): void {
    const core = this.core!;
    this.skips.push({ message, bytes: this.coreBase + core.info.bytes, fields: [...core.state.record] });
    // `"Bob" Jr`: csv-parse would read on inside the quotes, up to the next closing quote anywhere
    // below, and drop every line between as this one bad record. The rest of the field is read
    // unquoted instead, so the bad record ends with its line, as RecordBounds has it.
    if (code === 'CSV_INVALID_CLOSING_QUOTE') core.state.quoting = false;
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
    const raw = this.kept.text(this.bounds.starts[k], this.bounds.ends[k]);
    this.out.push({
      kind: 'malformed',
      line,
      message: this.malformed(k, reason),
      fields: first?.fields ?? [],
      ...(raw !== undefined && { raw }),
    });
    return k + 1;
  }

  /** Record k, which csv-parse read but cannot be a row: its message names every line it spans. */
  private malformedItem(k: number, reason: string, fields: string[]): SourceItem {
    return { kind: 'malformed', line: this.bounds.lines[k]!, message: this.malformed(k, reason), fields };
  }

  /** Record k's message: its lines (all of them when a quote error made it span several) and the reason. */
  private malformed(k: number, reason: string): string {
    return malformedMessage(this.name, this.bounds.lines[k]!, this.bounds.lastLines[k]!, reason);
  }
}
