import { join } from 'node:path';
import iconv from 'iconv-lite';
import { describe, expect, it } from 'vitest';
import { resolveEncoding } from '../../src/source/_encoding.js';
import { locateUndecodable } from '../../src/source/_locate-undecodable.js';
import { tmpTree } from '../helpers/tmp.js';

const bytes = (...parts: (string | number[])[]) =>
  Buffer.concat(parts.map((p) => (typeof p === 'string' ? Buffer.from(p) : Buffer.from(p))));

describe('locateUndecodable', () => {
  it.each([
    ['utf-8', bytes('a\r\nb\rc\nd', [0xe9], 'x'), { line: 4, offset: 8, bytes: [0xe9] }],
    ['utf-8', bytes('ab', [0xe2, 0x82], 'x'), { line: 1, offset: 2, bytes: [0xe2, 0x82] }],
    ['utf-8', bytes('a\n', [0xf0, 0x9f, 0x98]), { line: 2, offset: 2, bytes: [0xf0, 0x9f, 0x98] }],
    ['utf-8', bytes('ok ż\n'), undefined],
    [
      'utf-16le',
      Buffer.concat([iconv.encode('a\nb', 'utf-16le'), Buffer.from([0x00, 0xdc])]),
      { line: 2, offset: 6, bytes: [0x00, 0xdc] },
    ],
    [
      'utf-16be',
      Buffer.concat([iconv.encode('a\r\n', 'utf-16be'), Buffer.from([0xd8, 0x00, 0x00, 0x41])]),
      { line: 2, offset: 6, bytes: [0xd8, 0x00] },
    ],
    // Cut by the 64 KiB chunk boundary of the file stream: found whole, with its bytes.
    ['utf-8', bytes('a'.repeat(65535), [0xe2, 0x82], 'x'), { line: 1, offset: 65535, bytes: [0xe2, 0x82] }],
    [
      'utf-16le',
      Buffer.concat([iconv.encode('a'.repeat(32767), 'utf-16le'), Buffer.from([0x3d, 0xd8, 0x41, 0x00])]),
      { line: 1, offset: 65534, bytes: [0x3d, 0xd8] },
    ],
    // A CR, a character, an LF: two line ends, as the reader counts them.
    ['utf-8', bytes('\rż\n', [0xff]), { line: 3, offset: 4, bytes: [0xff] }],
    [
      'utf-16',
      Buffer.concat([Buffer.from([0xfe, 0xff]), iconv.encode('a\n', 'utf-16be'), Buffer.from([0xdc, 0x00])]),
      { line: 2, offset: 6, bytes: [0xdc, 0x00] },
    ],
    ['windows-1250', bytes('x;y\r\n\r\nz;', [0x83]), { line: 3, offset: 9, bytes: [0x83] }],
  ])('%s %o', async (encoding, content, expected) => {
    const path = join(tmpTree({ 'f.csv': content }), 'f.csv');
    const found = await locateUndecodable(path, resolveEncoding(encoding)!);
    if (expected === undefined) expect(found).toBeUndefined();
    else expect({ line: found?.line, offset: found?.offset, bytes: [...(found?.bytes ?? [])] }).toEqual(expected);
  });

  it('gives the line only for a multi-byte code page', async () => {
    const content = Buffer.concat([iconv.encode('名前\n値\n', 'shift_jis'), Buffer.from([0x81])]);
    const path = join(tmpTree({ 'f.csv': content }), 'f.csv');
    expect(await locateUndecodable(path, resolveEncoding('shift_jis')!)).toEqual({ line: 3 });
  });
});
