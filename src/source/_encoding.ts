import iconv from 'iconv-lite';

/**
 * How a declared encoding is decoded. UTF-8 and UTF-16 go through a fatal `TextDecoder` (an
 * invalid sequence throws instead of becoming U+FFFD); everything else through iconv-lite, which
 * has no fatal mode: there a U+FFFD in the output marks a byte the code page leaves undefined (a
 * single-byte code page cannot encode U+FFFD itself, so it is never data).
 */
export type ResolvedEncoding =
  | { readonly kind: 'utf-8'; readonly label: string }
  | { readonly kind: 'utf-16'; readonly label: string; readonly endian: 'le' | 'be' | 'bom' }
  | { readonly kind: 'iconv'; readonly label: string; readonly name: string; readonly singleByte: boolean };

/** `undefined` for a name neither the platform nor iconv-lite knows. */
export function resolveEncoding(label: string): ResolvedEncoding | undefined {
  const key = label.toLowerCase().replace(/[^0-9a-z]/g, '');
  if (key === 'utf8') return { kind: 'utf-8', label };
  if (key === 'utf16le' || key === 'ucs2') return { kind: 'utf-16', label, endian: 'le' };
  if (key === 'utf16be') return { kind: 'utf-16', label, endian: 'be' };
  if (key === 'utf16') return { kind: 'utf-16', label, endian: 'bom' };
  if (!iconv.encodingExists(label)) return undefined;
  return { kind: 'iconv', label, name: label, singleByte: isSingleByte(label) };
}

/** Every byte is one character on its own (no lead bytes): offsets in the file are exact. */
function isSingleByte(name: string): boolean {
  const all = Buffer.from(Array.from({ length: 256 }, (_, b) => b));
  if (iconv.decode(all, name).length !== 256) return false;
  for (let b = 0; b < 256; b++) {
    if (iconv.decode(all.subarray(b, b + 1), name).length !== 1) return false;
  }
  return true;
}

/** Byte order marks, longest first within a family. */
const BOMS = [
  { name: 'UTF-8', bytes: Buffer.from([0xef, 0xbb, 0xbf]) },
  { name: 'UTF-16LE', bytes: Buffer.from([0xff, 0xfe]) },
  { name: 'UTF-16BE', bytes: Buffer.from([0xfe, 0xff]) },
] as const;
type BomName = (typeof BOMS)[number]['name'];

/** Thrown by a transcoder; the reader turns it into a SourceError that says where. */
export class Undecodable extends Error {
  /** Set when the file starts with the byte order mark of another encoding. */
  readonly bom: BomName | undefined;
  constructor(bom?: BomName) {
    super(bom === undefined ? 'undecodable input' : `byte order mark of ${bom}`);
    this.bom = bom;
  }
}

/** File bytes in, UTF-8 bytes out (what csv-parse is fed); a leading BOM is removed. */
export interface Transcoder {
  /** Throws Undecodable. */
  write(chunk: Buffer): Buffer;
  /** Throws Undecodable (a character cut by the end of the file). */
  end(): Buffer;
}

const EMPTY = Buffer.alloc(0);

export function createTranscoder(encoding: ResolvedEncoding): Transcoder {
  let head: Buffer | undefined = EMPTY; // the first bytes, until the BOM question is settled
  let body: Transcoder | undefined;
  const start = (bytes: Buffer): Buffer => {
    head = undefined;
    const bom = BOMS.find((b) => bytes.subarray(0, b.bytes.length).equals(b.bytes))?.name;
    const chosen = bodyFor(encoding, bom);
    body = chosen.transcoder;
    return body.write(bytes.subarray(chosen.skip));
  };
  return {
    write(chunk) {
      if (body !== undefined) return body.write(chunk);
      const bytes: Buffer = head!.length === 0 ? chunk : Buffer.concat([head!, chunk]);
      if (bytes.length < 3) {
        head = bytes;
        return EMPTY;
      }
      return start(bytes);
    },
    end() {
      if (body === undefined) {
        const rest = start(head ?? EMPTY);
        return Buffer.concat([rest, body!.end()]);
      }
      return body.end();
    },
  };
}

function bodyFor(encoding: ResolvedEncoding, bom: BomName | undefined): { transcoder: Transcoder; skip: number } {
  switch (encoding.kind) {
    case 'utf-8':
      if (bom !== undefined && bom !== 'UTF-8') throw new Undecodable(bom);
      return { transcoder: utf8Validator(), skip: bom === 'UTF-8' ? 3 : 0 };
    case 'utf-16': {
      if (bom === 'UTF-8') throw new Undecodable(bom);
      const endian = encoding.endian === 'bom' ? (bom === 'UTF-16BE' ? 'be' : 'le') : encoding.endian;
      if (bom !== undefined && bom !== (endian === 'le' ? 'UTF-16LE' : 'UTF-16BE')) throw new Undecodable(bom);
      return { transcoder: utf16Transcoder(endian), skip: bom === undefined ? 0 : 2 };
    }
    case 'iconv':
      // A single-byte code page read over a Unicode BOM would turn it into letters of the header.
      if (bom !== undefined && encoding.singleByte) throw new Undecodable(bom);
      return { transcoder: iconvTranscoder(encoding.name), skip: 0 };
  }
}

/**
 * UTF-8 is what csv-parse reads already: the bytes pass through unchanged and a fatal streaming
 * TextDecoder only checks them (a sequence cut by a chunk boundary is held over, not rejected).
 * Its output is dropped; measured at about 100 ms per 64 MB, a few percent of the parse.
 */
function utf8Validator(): Transcoder {
  const decoder = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });
  return {
    write(chunk) {
      try {
        decoder.decode(chunk, { stream: true });
      } catch {
        throw new Undecodable();
      }
      return chunk;
    },
    end() {
      try {
        decoder.decode();
      } catch {
        throw new Undecodable();
      }
      return EMPTY;
    },
  };
}

function utf16Transcoder(endian: 'le' | 'be'): Transcoder {
  const decoder = new TextDecoder(endian === 'le' ? 'utf-16le' : 'utf-16be', { fatal: true, ignoreBOM: true });
  const run = (chunk: Buffer | undefined): Buffer => {
    try {
      return Buffer.from(chunk === undefined ? decoder.decode() : decoder.decode(chunk, { stream: true }), 'utf8');
    } catch {
      throw new Undecodable();
    }
  };
  return { write: (chunk) => run(chunk), end: () => run(undefined) };
}

function iconvTranscoder(name: string): Transcoder {
  const decoder = iconv.getDecoder(name);
  const check = (text: string): Buffer => {
    if (text.includes('\uFFFD')) throw new Undecodable();
    return Buffer.from(text, 'utf8');
  };
  return { write: (chunk) => check(decoder.write(chunk)), end: () => check(decoder.end() ?? '') };
}
