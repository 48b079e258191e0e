import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { headerLine, payloadLine, type BulkColumn } from '../../src/bulk/chunk-csv.js';
import { createChunkFileWriter, writeSubChunk } from '../../src/bulk/chunk-file.js';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'engage-import-chunk-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const COLUMNS: BulkColumn[] = [
  { field: 'custom_id', header: 'custom_id' },
  { field: 'last_name', header: 'last_name' },
];
const line = (payload: Record<string, unknown>) => (payloadLine(COLUMNS, payload) as { text: string }).text;

describe('createChunkFileWriter', () => {
  it('writes the header and the lines, counting rows and bytes (UTF-8)', async () => {
    const path = join(dir, 'c.csv');
    const writer = createChunkFileWriter(path, headerLine(COLUMNS));
    await writer.write(line({ custom_id: 'C-1', last_name: 'Łącka' }));
    await writer.write(line({ custom_id: 'C-2', last_name: 'Nowak, "Jr"\nII' }));
    await writer.close();
    const text = await readFile(path, 'utf8');
    expect(text).toBe('custom_id,last_name\nC-1,Łącka\nC-2,"Nowak, ""Jr""\nII"\n');
    expect([writer.rows, writer.bytes]).toEqual([2, Buffer.byteLength(text)]);
  });

  it('fits: whether one more line stays under the limit (always under 200 MB by default)', () => {
    const writer = createChunkFileWriter(join(dir, 'c.csv'), 'custom_id\n', 20);
    expect(writer.fits('C-1\n')).toBe(true);
    expect(writer.fits('C-123456789\n')).toBe(false);
    return writer.close();
  });
});

describe('writeSubChunk', () => {
  it('copies the header and the records at the positions, byte for byte, multi-line records included', async () => {
    const source = join(dir, 'c.csv');
    await writeFile(source, 'custom_id,last_name\nC-0,A\nC-1,"B\nb"\nC-2,C\nC-3,"D,d"\n');
    const target = join(dir, 's.csv');
    expect(await writeSubChunk(source, [1, 3], target)).toBe(2);
    expect(await readFile(target, 'utf8')).toBe('custom_id,last_name\nC-1,"B\nb"\nC-3,"D,d"\n');
  });

  it('a position past the end is a caller bug (RangeError)', async () => {
    const source = join(dir, 'c.csv');
    await writeFile(source, 'custom_id\nC-0\n');
    await expect(writeSubChunk(source, [0, 5], join(dir, 's.csv'))).rejects.toThrow('2 rows asked, 1 found');
  });
});
