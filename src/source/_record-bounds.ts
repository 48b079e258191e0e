const LF = 0x0a;
const CR = 0x0d;
const QUOTE = 0x22;
const NUL = 0x00;

/**
 * Where each record of the file starts (its line) and ends (its byte offset), which csv-parse
 * does not tell: its `info.lines` is the line where a record ENDS, counts a quoted CRLF as two
 * lines, and says nothing at all about a record it skipped because of a quote error.
 *
 * It scans the same UTF-8 bytes that csv-parse is fed and applies csv-parse's own rules (strict
 * quotes, `"` as quote and escape, CRLF/LF/CR as record delimiters, blank lines skipped), so that
 * record k here is record k there, good or bad. Only line breaks and quotes are looked at, found
 * with `indexOf` (native), so a quote-free file costs about one call per line.
 *
 * The rules, from csv-parse 6.2 `api/index.js`:
 * - outside quotes, a `"` opens a quoted field only as the field's first byte; anywhere else it is
 *   an Invalid Opening Quote error and a plain character;
 * - inside quotes, `""` is an escaped quote; a `"` followed by the delimiter, a line break, a NUL
 *   byte or the end of the file closes the field; before anything else it is an Invalid Closing
 *   Quote error and a plain character, and the rest of the field is read unquoted (csv-parse keeps
 *   it quoted, which would swallow the lines after it: the reader ends its quoting there too);
 * - outside quotes CRLF, LF and CR end the record; a line break with nothing before it since the
 *   previous one is a blank line and is skipped; a quote still open at the end of the file is a
 *   Quote Not Closed error and the record runs to the end of the file.
 *
 * Completed records are queued in parallel arrays (`ends`, `lines`, `problemLines`) from which the
 * reader takes them in order.
 */
export class RecordBounds {
  /** Byte offset just after each record's line break (or the end of the file), in fed bytes. */
  readonly ends: number[] = [];
  /** Byte offset of each record's first byte, in fed bytes. */
  readonly starts: number[] = [];
  /** Line on which each record starts (1-based, CRLF, LF and CR each end a line). */
  readonly lines: number[] = [];
  /** Line on which each record ends: more than its start for quoted line breaks, or a quote error read through. */
  readonly lastLines: number[] = [];
  /** Line of the record's first quote error (where its open quote opened, for one left open at the end), 0 if none. */
  readonly problemLines: number[] = [];

  private base = 0; // offset of the current chunk's first byte in the fed stream
  private line = 1;
  private inQuote = false;
  private inRecord = false;
  private startLine = 0;
  private startOffset = 0;
  private problemLine = 0;
  private quoteLine = 0;
  /** The byte before the current chunk; a line break at the start acts as "a record may start". */
  private before = LF;
  /** A CR or an in-quote `"` that ended the previous chunk: it needs the next byte to be understood. */
  private carry: Buffer | undefined;

  /** `firstLine`: the line the first byte fed is on (2 when a `sep=` line was taken off). */
  constructor(
    private readonly delimiter: number,
    firstLine = 1,
  ) {
    this.line = firstLine;
  }

  /** The record under way (started, not ended yet): where it starts. */
  get openRecord(): { readonly offset: number; readonly line: number } | undefined {
    return this.inRecord ? { offset: this.startOffset, line: this.startLine } : undefined;
  }

  /** Set by `finish` when the last record ran to the end of the file inside quotes: where that quote opened. */
  unclosedQuoteLine = 0;

  /** Remove the first `count` queued records (taken by the reader). */
  drop(count: number): void {
    this.ends.splice(0, count);
    this.starts.splice(0, count);
    this.lines.splice(0, count);
    this.lastLines.splice(0, count);
    this.problemLines.splice(0, count);
  }

  /** Scan the next bytes of the stream (exactly the bytes given to csv-parse, in order). */
  scan(chunk: Buffer): void {
    let buf = chunk;
    if (this.carry !== undefined) {
      // Rare (a chunk ending in CR or in a quote inside quotes): re-scan that byte with its successor.
      // `base` already points at the carried byte.
      buf = Buffer.concat([this.carry, chunk]);
      this.carry = undefined;
    }
    const n = buf.length;
    if (n === 0) return;
    let at = 0; // next byte not yet accounted for
    let nextLf = indexOrEnd(buf, LF, 0);
    let nextCr = indexOrEnd(buf, CR, 0);
    let nextQuote = indexOrEnd(buf, QUOTE, 0);
    for (;;) {
      const p = Math.min(nextLf, nextCr, nextQuote);
      if (p >= n) break;
      const b = buf[p]!;
      // Any byte other than a line break after a boundary starts a record, as csv-parse's
      // skip_empty_lines has it.
      if (!this.inRecord && (p > at || b === QUOTE)) this.startRecord(this.base + at);
      if (b === QUOTE) {
        if (!this.inQuote) {
          const prev = p > 0 ? buf[p - 1]! : this.before;
          if (prev === this.delimiter || prev === LF || prev === CR) {
            this.inQuote = true;
            this.quoteLine = this.line;
          } else if (this.problemLine === 0) {
            this.problemLine = this.line; // Invalid Opening Quote
          }
          at = p + 1;
        } else {
          if (p + 1 === n) {
            this.keep(buf, p);
            return;
          }
          const after = buf[p + 1]!;
          if (after === QUOTE) {
            at = p + 2; // escaped quote
            nextQuote = indexOrEnd(buf, QUOTE, at);
            continue;
          }
          if (after === this.delimiter || after === LF || after === CR || after === NUL) this.inQuote = false;
          else {
            // Invalid Closing Quote (`"Bob" Jr`): the field is read on unquoted, so the record ends
            // with its line, as the reader has csv-parse do too (`_csv-reader.ts`), rather than
            // swallowing every line up to the next closing quote.
            if (this.problemLine === 0) this.problemLine = this.line;
            this.inQuote = false;
          }
          at = p + 1;
        }
        nextQuote = indexOrEnd(buf, QUOTE, at);
        continue;
      }
      if (b === CR) {
        if (p + 1 === n) {
          this.keep(buf, p);
          return;
        }
        at = buf[p + 1] === LF ? p + 2 : p + 1;
        nextCr = indexOrEnd(buf, CR, at);
        if (at === p + 2) nextLf = indexOrEnd(buf, LF, at);
      } else {
        at = p + 1;
        nextLf = indexOrEnd(buf, LF, at);
      }
      this.line++;
      if (!this.inQuote && this.inRecord) this.endRecord(this.base + at, this.line - 1);
    }
    if (!this.inRecord && at < n) this.startRecord(this.base + at);
    this.before = buf[n - 1]!;
    this.base += n;
  }

  /** The end of the stream: complete the last record, if any. */
  finish(): void {
    if (this.carry !== undefined) {
      const carry = this.carry;
      this.carry = undefined;
      this.finishCarry(carry);
    }
    if (this.inRecord) {
      if (this.inQuote) this.unclosedQuoteLine = this.quoteLine;
      if (this.inQuote && this.problemLine === 0) this.problemLine = this.quoteLine; // Quote Not Closed
      // Its last line: the one before the final line break, if the file ends with one.
      this.endRecord(this.base, this.before === LF || this.before === CR ? this.line - 1 : this.line);
    }
  }

  /** The carried byte is the last of the file: a lone CR, or a `"` that closes its field. */
  private finishCarry(carry: Buffer): void {
    const b = carry[0]!;
    this.base += 1;
    this.before = b;
    if (b === QUOTE) {
      this.inQuote = false;
      return;
    }
    this.line++;
    if (!this.inQuote && this.inRecord) this.endRecord(this.base, this.line - 1);
  }

  private keep(buf: Buffer, p: number): void {
    this.carry = Buffer.from(buf.subarray(p, p + 1));
    this.before = p > 0 ? buf[p - 1]! : this.before;
    this.base += p;
  }

  private startRecord(offset: number): void {
    this.inRecord = true;
    this.startOffset = offset;
    this.startLine = this.line;
  }

  private endRecord(end: number, lastLine: number): void {
    this.ends.push(end);
    this.starts.push(this.startOffset);
    this.lines.push(this.startLine);
    this.lastLines.push(lastLine);
    this.problemLines.push(this.problemLine);
    this.inRecord = false;
    this.inQuote = false;
    this.problemLine = 0;
  }
}

function indexOrEnd(buf: Buffer, byte: number, from: number): number {
  const i = buf.indexOf(byte, from);
  return i === -1 ? buf.length : i;
}
