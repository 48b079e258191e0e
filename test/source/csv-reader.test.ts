import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Delimiter } from '../../src/config/mapping-schema.js';
import { CsvReader } from '../../src/source/_csv-reader.js';
import type { SourceItem } from '../../src/source/csv-source.js';
import { tmpTree } from '../helpers/tmp.js';
import { builtCsv } from './_built-csv.js';

/** Everything a reader yields, or the error it stops with, reading `chunkBytes` at a time. */
async function readAll(path: string, delimiter: Delimiter, encoding: string, chunkBytes?: number) {
  const items: SourceItem[] = [];
  try {
    const reader = await CsvReader.open(path, encoding, delimiter, chunkBytes);
    const iterator = reader.iterate();
    for (let r = await iterator.next(); !r.done; r = await iterator.next()) items.push(r.value);
    return { header: reader.header, delimiter: reader.delimiter, items };
  } catch (error) {
    return { error: String(error), items };
  }
}

describe('CsvReader across chunk boundaries', () => {
  it('reads the same records whatever the chunk size (every boundary case at a chunk edge)', async () => {
    await fc.assert(
      fc.asyncProperty(builtCsv, fc.integer({ min: 1, max: 9 }), async ({ text, delimiter }, chunkBytes) => {
        const path = join(tmpTree({ 'data.csv': text }), 'data.csv');
        expect(await readAll(path, delimiter, 'utf-8', chunkBytes)).toEqual(await readAll(path, delimiter, 'utf-8'));
      }),
      { numRuns: 300 },
    );
  });

  it.each([
    ['utf-8 with BOM', Buffer.from('\ufeffa;b\r\nż;"x\r\ny"\r\nć;d\r\n'), 'utf-8'],
    ['utf-16le with BOM', Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('a;b\r\nż;"x\r\ny"\r\nć;d\r\n', 'utf16le')]), 'utf-16le'],
    ['windows-1250', Buffer.from([0x61, 0x3b, 0x62, 0x0d, 0x0a, 0xbf, 0x3b, 0x22, 0x78, 0x0d, 0x0a, 0x79, 0x22, 0x0d, 0x0a, 0xe6, 0x3b, 0x64]), 'windows-1250'],
  ])('%s, auto delimiter, chunks of 1 to 7 bytes', async (_name, bytes, encoding) => {
    const path = join(tmpTree({ 'data.csv': bytes }), 'data.csv');
    const whole = await readAll(path, 'auto', encoding);
    expect(whole).toMatchObject({ delimiter: ';', header: ['a', 'b'] });
    expect(whole.items.map((i) => [i.line, i.fields])).toEqual([
      [2, ['ż', 'x\r\ny']],
      [4, ['ć', 'd']],
    ]);
    for (let size = 1; size <= 7; size++) expect(await readAll(path, 'auto', encoding, size)).toEqual(whole);
  });

  it('finds bad utf-8 cut by a chunk edge, after the rows before it', async () => {
    const bytes = Buffer.concat([Buffer.from('a;b\nż;c\nd;'), Buffer.from([0xc5, 0x41])]);
    const path = join(tmpTree({ 'data.csv': bytes }), 'data.csv');
    const message = "SourceError: data.csv is not valid utf-8: byte 0xC5 at line 3 (byte offset 11) cannot be decoded. Set the mapping's source.encoding to the file's real encoding.";
    expect(await readAll(path, 'auto', 'utf-8')).toEqual({ error: message, items: [] });
    for (let size = 1; size <= 7; size++) {
      const { error, items } = await readAll(path, 'auto', 'utf-8', size);
      expect(error).toBe(message);
      // Rows from chunks decoded before the bad one are yielded; none carries a U+FFFD.
      expect(items.map((i) => i.fields)).toEqual(items.length === 0 ? [] : [['ż', 'c']]);
    }
  });
});
