import { createReadStream } from 'node:fs';
import iconv from 'iconv-lite';
import type { ResolvedEncoding } from './_encoding.js';

/** Where the first undecodable bytes of a file are. */
export interface UndecodableAt {
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
 * from the start to say exactly where (a fatal TextDecoder only says "somewhere in this chunk"):
 * UTF-8 and UTF-16 by bisecting with that same decoder, code pages byte by byte through iconv-lite
 * (which has no fatal mode). `undefined` if it finds nothing (the fast pass is the authority).
 */
export async function locateUndecodable(path: string, encoding: ResolvedEncoding): Promise<UndecodableAt | undefined> {
  const scanner =
    encoding.kind === 'utf-8'
      ? decoderScanner('utf-8')
      : encoding.kind === 'utf-16'
        ? decoderScanner(encoding.endian === 'bom' ? 'utf-16' : `utf-16${encoding.endian}`)
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
  scan(chunk: Buffer, base: number, lines: LineCounter): UndecodableAt | undefined;
  /** A character left open by the end of the file. */
  end(lines: LineCounter): UndecodableAt | undefined;
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

function withBytes(found: UndecodableAt, chunk: Buffer, base: number): UndecodableAt {
  if (found.bytes !== undefined || found.offset === undefined || found.length === undefined) return found;
  const from = found.offset - base;
  return from < 0 ? found : { ...found, bytes: Buffer.from(chunk.subarray(from, from + found.length)) };
}

/**
 * UTF-8 and UTF-16 through the same fatal `TextDecoder` as the fast pass (so both refuse the same
 * bytes), with a bisection to find where: a fresh decoder in stream mode refuses a prefix of the
 * bytes exactly when the prefix holds an invalid sequence (an unfinished one at its end is held
 * over, not refused), so the shortest refused prefix ends on the byte that showed the sequence was
 * bad. The bad sequence then starts at the last character boundary before that byte: the longest
 * shorter prefix that decodes completely (flushed). Bytes left unfinished at the end of a chunk are
 * carried into the next one, so a sequence cut by a chunk boundary is found whole.
 */
function decoderScanner(encoding: 'utf-8' | 'utf-16le' | 'utf-16be' | 'utf-16'): Scanner {
  const unit = encoding === 'utf-8' ? 1 : 2; // where a character may start: any byte, or an even one
  let label = encoding;
  const fresh = () => new TextDecoder(label, { fatal: true, ignoreBOM: true });
  const decodes = (bytes: Uint8Array, stream: boolean): string | undefined => {
    try {
      return fresh().decode(bytes, { stream });
    } catch {
      return undefined;
    }
  };
  /** Bytes a valid decoded text came from: it round-trips exactly. */
  const sizeOf = (text: string): number => (unit === 1 ? Buffer.byteLength(text, 'utf8') : text.length * 2);
  /** The bad sequence in `buf` (which starts on a character boundary, at file offset `base`) that byte `shown` showed bad. */
  const badAt = (buf: Buffer, base: number, shown: number, lines: LineCounter): UndecodableAt => {
    let start = shown - (shown % unit);
    while (start > 0 && decodes(buf.subarray(0, start), false) === undefined) start -= unit;
    // UTF-8 names the bytes that began the sequence (the byte that broke it may start the next);
    // UTF-16 names the code unit (a lone surrogate), or the odd byte the file ends on.
    const length = unit === 1 ? Math.max(1, shown - start) : Math.min(2, buf.length - start);
    const before = fresh().decode(buf.subarray(0, start));
    for (let i = 0; i < before.length; i++) lines.see(before.charCodeAt(i));
    return { line: lines.line, offset: base + start, length, bytes: Buffer.from(buf.subarray(start, start + length)) };
  };
  let carry: Buffer = Buffer.alloc(0);
  let carryBase = 0;
  return {
    scan(chunk, base, lines) {
      // UTF-16 with its order left to the BOM: big-endian only after FE FF, as the fast pass reads it.
      if (label === 'utf-16') label = chunk[0] === 0xfe && chunk[1] === 0xff ? 'utf-16be' : 'utf-16le';
      const buf = carry.length === 0 ? chunk : Buffer.concat([carry, chunk]);
      const bufBase = carry.length === 0 ? base : carryBase;
      const text = decodes(buf, true);
      if (text === undefined) {
        // Shortest refused prefix: its last byte is where the sequence showed it was bad.
        let low = 1;
        let high = buf.length;
        while (low < high) {
          const mid = (low + high) >>> 1;
          if (decodes(buf.subarray(0, mid), true) === undefined) high = mid;
          else low = mid + 1;
        }
        return badAt(buf, bufBase, low - 1, lines);
      }
      const size = sizeOf(text);
      for (let i = 0; i < text.length; i++) lines.see(text.charCodeAt(i));
      carry = Buffer.from(buf.subarray(size));
      carryBase = bufBase + size;
      return undefined;
    },
    end(lines) {
      if (carry.length === 0) return undefined;
      return badAt(carry, carryBase, carry.length, lines);
    },
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
  const look = (text: string, lines: LineCounter): UndecodableAt | undefined => {
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
