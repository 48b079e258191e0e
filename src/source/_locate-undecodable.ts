import { createReadStream } from 'node:fs';
import iconv from 'iconv-lite';
import type { ResolvedEncoding } from './_encoding.js';

/** Where the first undecodable bytes of a file are. */
export interface Undecodable {
  /** Line of the bad bytes (CRLF, LF and CR end a line, as everywhere in the reader). */
  readonly line: number;
  /** Offset of the bad bytes in the file; absent for multi-byte iconv code pages. */
  readonly offset?: number;
  /** How many bytes are bad (an invalid byte, or a sequence that stops short). */
  readonly length?: number;
  /** The bad bytes, for the message (absent when they straddle two chunks). */
  readonly bytes?: Buffer;
}

/**
 * Only runs after the fast pass has found that the file does not decode: it reads the file again
 * from the start and checks it byte by byte to say exactly where (a fatal TextDecoder only says
 * "somewhere in this chunk"). `undefined` if it finds nothing (the fast pass is the authority).
 */
export async function locateUndecodable(path: string, encoding: ResolvedEncoding): Promise<Undecodable | undefined> {
  const scanner =
    encoding.kind === 'utf-8'
      ? utf8Scanner()
      : encoding.kind === 'utf-16'
        ? utf16Scanner(encoding.endian)
        : encoding.singleByte
          ? singleByteScanner(encoding.name)
          : multiByteScanner(encoding.name);
  const lines = lineCounter();
  let offset = 0;
  let last: Buffer = Buffer.alloc(0);
  for await (const chunk of createReadStream(path) as AsyncIterable<Buffer>) {
    const found = scanner.scan(chunk, offset, lines);
    if (found !== undefined) return withBytes(found, chunk, offset);
    offset += chunk.length;
    last = chunk;
  }
  const found = scanner.end(lines);
  return found === undefined ? undefined : withBytes(found, last, offset - last.length);
}

interface Scanner {
  /** The first problem in `chunk` (which starts at file offset `base`), counting its line breaks on `lines`. */
  scan(chunk: Buffer, base: number, lines: LineCounter): Undecodable | undefined;
  /** A character left open by the end of the file. */
  end(lines: LineCounter): Undecodable | undefined;
}

interface LineCounter {
  /** A decoded character (code unit), in order. */
  see(unit: number): void;
  readonly line: number;
}

function lineCounter(): LineCounter {
  let line = 1;
  let afterCr = false;
  return {
    see(unit) {
      if (unit === 0x0a) {
        if (!afterCr) line++;
        afterCr = false;
      } else {
        if (unit === 0x0d) line++;
        afterCr = unit === 0x0d;
      }
    },
    get line() {
      return line;
    },
  };
}

function withBytes(found: Undecodable, chunk: Buffer, base: number): Undecodable {
  if (found.offset === undefined || found.length === undefined) return found;
  const from = found.offset - base;
  return from < 0 ? found : { ...found, bytes: Buffer.from(chunk.subarray(from, from + found.length)) };
}

/** Well-formed UTF-8 (Unicode table 3-7): the same bytes a fatal TextDecoder refuses. */
function utf8Scanner(): Scanner {
  let need = 0;
  let low = 0x80;
  let high = 0xbf;
  let start = 0;
  let startLine = 1;
  let length = 0;
  const lead = (b: number): boolean => {
    if (b >= 0xc2 && b <= 0xdf) need = 1;
    else if (b >= 0xe0 && b <= 0xef) {
      need = 2;
      if (b === 0xe0) low = 0xa0;
      if (b === 0xed) high = 0x9f;
    } else if (b >= 0xf0 && b <= 0xf4) {
      need = 3;
      if (b === 0xf0) low = 0x90;
      if (b === 0xf4) high = 0x8f;
    } else return false;
    return true;
  };
  return {
    scan(chunk, base, lines) {
      for (let i = 0; i < chunk.length; i++) {
        const b = chunk[i]!;
        if (need === 0) {
          if (b < 0x80) {
            lines.see(b);
            continue;
          }
          start = base + i;
          startLine = lines.line;
          length = 1;
          if (!lead(b)) return { line: startLine, offset: start, length };
          continue;
        }
        // The sequence so far is what is wrong; this byte may start the next one.
        if (b < low || b > high) return { line: startLine, offset: start, length };
        low = 0x80;
        high = 0xbf;
        need--;
        length++;
      }
      return undefined;
    },
    end: () => (need > 0 ? { line: startLine, offset: start, length } : undefined),
  };
}

function utf16Scanner(endian: 'le' | 'be' | 'bom'): Scanner {
  let order: 'le' | 'be' | undefined = endian === 'bom' ? undefined : endian;
  let odd: number | undefined; // first byte of a unit cut by a chunk boundary
  let high: { offset: number; line: number; length: 2 } | undefined; // a high surrogate waiting for its low half
  let offset = 0;
  return {
    scan(chunk, base, lines) {
      for (let i = 0; i < chunk.length; i++) {
        if (odd === undefined) {
          odd = chunk[i]!;
          offset = base + i;
          continue;
        }
        const b0 = odd;
        const b1 = chunk[i]!;
        odd = undefined;
        if (order === undefined) order = b0 === 0xfe && b1 === 0xff ? 'be' : 'le';
        const unit = order === 'le' ? b0 | (b1 << 8) : (b0 << 8) | b1;
        if (high !== undefined) {
          if (unit >= 0xdc00 && unit <= 0xdfff) {
            high = undefined;
            continue;
          }
          return high;
        }
        if (unit >= 0xd800 && unit <= 0xdbff) high = { offset, line: lines.line, length: 2 };
        else if (unit >= 0xdc00 && unit <= 0xdfff) return { offset, line: lines.line, length: 2 };
        else lines.see(unit);
      }
      return undefined;
    },
    end: (lines) => high ?? (odd !== undefined ? { offset, line: lines.line, length: 1 } : undefined),
  };
}

function singleByteScanner(name: string): Scanner {
  const table = iconv.decode(Buffer.from(Array.from({ length: 256 }, (_, b) => b)), name);
  return {
    scan(chunk, base, lines) {
      for (let i = 0; i < chunk.length; i++) {
        const unit = table.charCodeAt(chunk[i]!);
        if (unit === 0xfffd) return { line: lines.line, offset: base + i, length: 1 };
        lines.see(unit);
      }
      return undefined;
    },
    end: () => undefined,
  };
}

function multiByteScanner(name: string): Scanner {
  const decoder = iconv.getDecoder(name);
  const look = (text: string, lines: LineCounter): Undecodable | undefined => {
    for (let i = 0; i < text.length; i++) {
      const unit = text.charCodeAt(i);
      if (unit === 0xfffd) return { line: lines.line };
      lines.see(unit);
    }
    return undefined;
  };
  return {
    scan: (chunk, _base, lines) => look(decoder.write(chunk), lines),
    end: (lines) => look(decoder.end() ?? '', lines),
  };
}
