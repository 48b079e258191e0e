import iconv from 'iconv-lite';
import { describe, expect, it } from 'vitest';
import { createTranscoder, resolveEncoding, Undecodable } from '../../src/source/_encoding.js';

/** Feed `bytes` one byte at a time (the hardest split) and return the UTF-8 text, or the error. */
function byteByByte(bytes: Buffer, encoding: string): string {
  const resolved = resolveEncoding(encoding)!;
  const t = createTranscoder(resolved);
  const out: Buffer[] = [];
  try {
    for (const b of bytes) out.push(t.write(Buffer.from([b])));
    out.push(t.end());
  } catch (error) {
    if (error instanceof Undecodable) return `Undecodable${error.bom ? ` ${error.bom}` : ''}`;
    throw error;
  }
  return Buffer.concat(out).toString('utf8');
}

describe('resolveEncoding', () => {
  it.each([
    ['utf-8', 'utf-8'],
    ['UTF8', 'utf-8'],
    ['utf-16le', 'utf-16'],
    ['UCS-2', 'utf-16'],
    ['windows-1250', 'iconv'],
    ['cp1250', 'iconv'],
    ['latin1', 'iconv'],
    ['shift_jis', 'iconv'],
  ])('%s → %s', (name, kind) => {
    expect(resolveEncoding(name)?.kind).toBe(kind);
  });

  it('knows which iconv code pages are single-byte (exact offsets) and which are not', () => {
    expect(resolveEncoding('windows-1250')).toMatchObject({ singleByte: true });
    expect(resolveEncoding('shift_jis')).toMatchObject({ singleByte: false });
    expect(resolveEncoding('no-such-thing')).toBeUndefined();
  });
});

describe('createTranscoder', () => {
  const text = 'id;név\r\nŻółw;Šťastný\r\n';

  it.each([
    ['utf-8', Buffer.from(text)],
    ['utf-8', Buffer.from(`\ufeff${text}`)],
    ['utf-16le', iconv.encode(text, 'utf-16le', { addBOM: true })],
    ['utf-16le', iconv.encode(text, 'utf-16le')],
    ['utf-16be', Buffer.concat([Buffer.from([0xfe, 0xff]), iconv.encode(text, 'utf-16be')])],
    ['utf-16', iconv.encode(text, 'utf-16le', { addBOM: true })],
    ['windows-1250', iconv.encode(text, 'windows-1250')],
    ['iso-8859-2', iconv.encode(text, 'iso-8859-2')],
  ])('%s, split at every byte, gives the text (BOM removed)', (encoding, bytes) => {
    expect(byteByByte(bytes, encoding)).toBe(text);
  });

  it('keeps a second U+FEFF: only the leading one is a BOM', () => {
    expect(byteByByte(Buffer.from('\ufeff\ufeffa'), 'utf-8')).toBe('\ufeffa');
  });

  it.each([
    ['utf-8', Buffer.from([0x61, 0xc3]), 'Undecodable'],
    ['utf-8', Buffer.from([0x61, 0xed, 0xa0, 0x80]), 'Undecodable'], // a surrogate
    ['utf-8', Buffer.from([0xc0, 0xaf]), 'Undecodable'], // overlong
    ['utf-16le', Buffer.from([0x61, 0x00, 0x62]), 'Undecodable'],
    ['windows-1250', Buffer.from([0x61, 0x98]), 'Undecodable'],
    ['utf-8', Buffer.from([0xff, 0xfe, 0x61, 0x00]), 'Undecodable UTF-16LE'],
    ['windows-1250', Buffer.from([0xef, 0xbb, 0xbf, 0x61]), 'Undecodable UTF-8'],
    ['utf-16be', Buffer.from([0xff, 0xfe, 0x61, 0x00]), 'Undecodable UTF-16LE'],
  ])('%s refuses %o', (encoding, bytes, expected) => {
    expect(byteByByte(bytes, encoding)).toBe(expected);
  });
});
