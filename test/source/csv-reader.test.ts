import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Delimiter } from '../../src/config/mapping-schema.js';
import { CsvReader } from '../../src/source/_csv-reader.js';
import type { SourceItem } from '../../src/source/csv-source.js';
import { tmpTree } from '../helpers/tmp.js';
import { builtCsv } from './_built-csv.js';

/** Everything a reader yields, or the error it stops with, reading `chunkBytes` at a time. */
async function readAll(
  path: string,
  delimiter: Delimiter,
  encoding: string,
  chunkBytes?: number,
  maxRecordBytes?: number,
) {
  const items: SourceItem[] = [];
  try {
    const reader = await CsvReader.open(path, encoding, delimiter, {
      ...(chunkBytes && { chunkBytes }),
      ...(maxRecordBytes && { maxRecordBytes }),
    });
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
    [
      'utf-16le with BOM',
      Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('a;b\r\nż;"x\r\ny"\r\nć;d\r\n', 'utf16le')]),
      'utf-16le',
    ],
    [
      'windows-1250',
      Buffer.from([
        0x61, 0x3b, 0x62, 0x0d, 0x0a, 0xbf, 0x3b, 0x22, 0x78, 0x0d, 0x0a, 0x79, 0x22, 0x0d, 0x0a, 0xe6, 0x3b, 0x64,
      ]),
      'windows-1250',
    ],
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
    const message =
      "SourceError: data.csv is not valid utf-8: byte 0xC5 at line 3 (byte offset 11) cannot be decoded. Set the mapping's source.encoding to the file's real encoding.";
    expect(await readAll(path, 'auto', 'utf-8')).toEqual({ error: message, items: [] });
    for (let size = 1; size <= 7; size++) {
      const { error, items } = await readAll(path, 'auto', 'utf-8', size);
      expect(error).toBe(message);
      // Rows from chunks decoded before the bad one are yielded; none carries a U+FFFD.
      expect(items.map((i) => i.fields)).toEqual(items.length === 0 ? [] : [['ż', 'c']]);
    }
  });
});

describe('CsvReader: records over the size bound', () => {
  it('reports an unclosed quote early in a file once, without holding the rest of the file', async () => {
    const rest = Array.from({ length: 200 }, (_, i) => `${i},x`).join('\n');
    const path = join(tmpTree({ 'data.csv': `id,v\n1,a\n2,"open\n${rest}\n` }), 'data.csv');
    const expected = [
      [2, ['1', 'a']],
      [
        3,
        'data.csv lines 3–203: Quote Not Closed: the parsing is finished with an opening quote at line 3 (the parser read lines 3–203 as this one record: check its quotes)',
        ['2'],
      ],
    ];
    const seen = (r: Awaited<ReturnType<typeof readAll>>) =>
      r.items.map((i) => (i.kind === 'row' ? [i.line, i.fields] : [i.line, i.message, i.fields]));
    expect(seen(await readAll(path, ',', 'utf-8'))).toEqual(expected);
    for (const chunkBytes of [1, 5, 64])
      expect(seen(await readAll(path, ',', 'utf-8', chunkBytes, 100))).toEqual(expected);
  });

  it('reads on after a long record that does end', async () => {
    const long = Array.from({ length: 30 }, (_, i) => `line ${i}`).join('\r\n');
    const path = join(tmpTree({ 'data.csv': `id,v\r\n1,a\r\n2,"${long}"\r\n\r\n3,"b""c"\r\n4,x"y\r\n` }), 'data.csv');
    for (const chunkBytes of [1, 3, 7, 60]) {
      const { items } = await readAll(path, ',', 'utf-8', chunkBytes, 64);
      expect(items.map((i) => (i.kind === 'row' ? [i.line, i.fields] : [i.line, i.message]))).toEqual([
        [2, ['1', 'a']],
        [
          3,
          'data.csv lines 3–32: Max Record Size: record exceed the maximum number of tolerated bytes of 64 on line 3 (the parser read lines 3–32 as this one record: check its quotes)',
        ],
        [34, ['3', 'b"c']],
        [35, 'data.csv line 35: Invalid Opening Quote: a quote is found in column 2 ("v") at line 35, value is "x"'],
      ]);
    }
  });

  it('refuses a header over the bound', async () => {
    const path = join(tmpTree({ 'data.csv': `"${'h'.repeat(100)}\n1\n` }), 'data.csv');
    expect((await readAll(path, ',', 'utf-8', 16, 50)).error).toBe(
      'SourceError: data.csv line 1: the header cannot be read: Max Record Size: record exceed the maximum number of tolerated bytes of 50 on line 1',
    );
  });

  it('keeps one item per record, on its line, whatever the bound', async () => {
    await fc.assert(
      fc.asyncProperty(
        builtCsv,
        fc.integer({ min: 1, max: 9 }),
        fc.integer({ min: 4, max: 40 }),
        async ({ text, delimiter }, chunkBytes, maxRecordBytes) => {
          const path = join(tmpTree({ 'data.csv': text }), 'data.csv');
          const whole = await readAll(path, delimiter, 'utf-8');
          const bounded = await readAll(path, delimiter, 'utf-8', chunkBytes, maxRecordBytes);
          if (whole.error !== undefined || bounded.error !== undefined) {
            expect(bounded.error ?? '').toMatch(/header cannot be read: Max Record Size/);
            return;
          }
          expect(bounded.items.map((i) => i.line)).toEqual(whole.items.map((i) => i.line));
          bounded.items.forEach((item, k) => {
            if (item.kind === 'row') expect(item).toEqual(whole.items[k]);
          });
        },
      ),
      { numRuns: 300 },
    );
  });
});
