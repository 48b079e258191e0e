import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import iconv from 'iconv-lite';
import { describe, expect, it } from 'vitest';
import { SourceError } from '../../src/errors.js';
import { openCsv, type SourceItem } from '../../src/source/csv-source.js';
import { tmpTree } from '../helpers/tmp.js';

async function openError(content: Buffer, encoding = 'utf-8'): Promise<string> {
  const dir = tmpTree({ 'data.csv': content });
  try {
    const source = await openCsv({ path: join(dir, 'data.csv'), encoding });
    source.close();
  } catch (error) {
    expect(error).toBeInstanceOf(SourceError);
    return (error as Error).message;
  }
  throw new Error('expected a SourceError');
}

describe('encodings told apart before the header', () => {
  it('UTF-8 declared windows-1250 is refused with what it would have become', async () => {
    const message = await openError(Buffer.from('name,city\nZażółć,Łódź\n', 'utf8'), 'windows-1250');
    expect(message).toBe(
      `data.csv is declared windows-1250, but its bytes are UTF-8 throughout: the first non-ASCII character, on line 2, is "ż" and would be read as ${JSON.stringify(iconv.decode(Buffer.from('ż'), 'windows-1250'))}. Set the mapping's source.encoding to utf-8.`,
    );
  });

  it('real windows-1250 text is read as such', async () => {
    const dir = tmpTree({ 'data.csv': iconv.encode('name\nZażółć\n', 'windows-1250') });
    const source = await openCsv({ path: join(dir, 'data.csv'), encoding: 'windows-1250' });
    const items: SourceItem[] = [];
    for await (const i of source.items) items.push(i);
    expect(items.map((i) => i.fields)).toEqual([['Zażółć']]);
  });

  it.each([
    ['le', 'utf-16le'],
    ['be', 'utf-16be'],
  ] as const)('UTF-16%s without a byte order mark is named, with the encoding to set', async (endian, name) => {
    const message = await openError(iconv.encode('cid,email\nA1,a@x\n', name));
    expect(message).toBe(
      `data.csv has a NUL byte every other byte: it is UTF-16 (${endian === 'le' ? 'little' : 'big'}-endian) without a byte order mark, not utf-8. Set the mapping's source.encoding to utf-16${endian}.`,
    );
  });

  it.each([
    [
      'gzip',
      gzipSync('a,b\n1,2\n'),
      'data.csv is a gzip-compressed file, not a CSV: decompress it first (gunzip data.csv) and read the file inside',
    ],
    [
      'xlsx',
      Buffer.concat([Buffer.from([0x50, 0x4b, 0x03, 0x04]), Buffer.from('....[Content_Types].xml....xl/workbook.xml')]),
      'data.csv is an Excel workbook (.xlsx), not a CSV: open it and save the sheet as "CSV UTF-8 (comma delimited)"',
    ],
    [
      'zip',
      Buffer.concat([Buffer.from([0x50, 0x4b, 0x03, 0x04]), Buffer.from('....data.csv')]),
      'data.csv is a zip archive, not a CSV: unzip it and read the CSV inside',
    ],
  ])('a %s file is named as such instead of "set source.encoding"', async (_kind, bytes, message) => {
    expect(await openError(bytes)).toBe(message);
  });
});

describe("Excel's sep= first line", () => {
  it("names the delimiter and is skipped; lines stay the file's", async () => {
    const dir = tmpTree({ 'data.csv': 'sep=;\r\ncid;email\r\nA1;a@x\r\n' });
    const source = await openCsv({ path: join(dir, 'data.csv'), delimiter: ',' });
    expect(source.header).toEqual(['cid', 'email']);
    expect(source.delimiter).toBe(';');
    const items: SourceItem[] = [];
    for await (const i of source.items) items.push(i);
    expect(items.map((i) => [i.line, i.fields])).toEqual([[3, ['A1', 'a@x']]]);
  });
});
