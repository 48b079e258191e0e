import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import iconv from 'iconv-lite';
import { describe, expect, it } from 'vitest';
import type { ResolvedMapping } from '../../src/config/mapping-schema.js';
import { createRejectsWriter, rejectsFiles } from '../../src/report/rejects-writer.js';
import { tmpTree } from '../helpers/tmp.js';

const mapping = (source: string, delimiter: ',' | ';', encoding: string): ResolvedMapping => ({
  mappingFile: `/m/${source}.yaml`,
  resource: 'deal',
  operation: 'create',
  key: ['id'],
  fields: [],
  source: { path: `/data/${source}.csv`, delimiter, encoding },
});

describe('createRejectsWriter', () => {
  it('keeps the source delimiter and encoding so the fixed file feeds back with the same mapping', async () => {
    const path = join(tmpTree(), 'rejects.csv');
    const m = mapping('deals-pl', ';', 'windows-1250');
    const w = createRejectsWriter(rejectsFiles(path, false, [m]));
    await w.write(
      mapping('deals-pl', ';', 'windows-1250'),
      { header: ['nazwa', 'wartość'], delimiter: ';' },
      ['Łódź', '-12,50'],
      'value: expected a number, got "-12,50"',
    );
    await w.close();
    expect(w.files()).toEqual([path]);
    const text = iconv.decode(readFileSync(path), 'windows-1250');
    // The original cells are written back untouched (a leading "-" survives); the error is neutralised.
    expect(text).toBe('nazwa;wartość;error\nŁódź;-12,50;"value: expected a number, got ""-12,50"""\n');
  });

  it('writes one file per source for a job; a short record keeps its own fields, the error after them', async () => {
    const dir = tmpTree();
    const w = createRejectsWriter(
      rejectsFiles(join(dir, 'rejects.csv'), true, [mapping('a', ',', 'utf-8'), mapping('b', ',', 'utf-8')]),
    );
    await w.write(
      mapping('a', ',', 'utf-8'),
      { header: ['x', 'y', 'z'], delimiter: ',' },
      ['1'],
      'Invalid Record Length: expect 3, got 1',
    );
    await w.write(mapping('b', ',', 'utf-8'), { header: ['q'], delimiter: ',' }, ['=1+1'], '-bad');
    await w.close();
    expect(w.files()).toEqual([join(dir, 'rejects.a.csv'), join(dir, 'rejects.b.csv')]);
    expect(readFileSync(join(dir, 'rejects.a.csv'), 'utf8')).toBe(
      'x,y,z,error\n1,"Invalid Record Length: expect 3, got 1"\n',
    );
    expect(readFileSync(join(dir, 'rejects.b.csv'), 'utf8')).toBe("q,error\n=1+1,'-bad\n");
  });

  it('writes rows in input order whatever order they were decided in', async () => {
    const path = join(tmpTree(), 'rejects.csv');
    const m = mapping('x', ',', 'utf-8');
    const w = createRejectsWriter(rejectsFiles(path, false, [m]));
    const source = { header: ['id'], delimiter: ',' };
    await w.write(m, source, ['c'], 'third', 9);
    await w.write(m, source, ['a'], 'first', 2);
    await w.write(m, source, ['b'], 'parent line 2 failed: second', 5);
    await w.close();
    expect(readFileSync(path, 'utf8')).toBe('id,error\na,first\nb,parent line 2 failed: second\nc,third\n');
  });

  it('writes a record with too many fields as it was, the error after it, and a quote error verbatim: fed back unfixed, both are refused again', async () => {
    const path = join(tmpTree(), 'rejects.csv');
    const m = mapping('x', ',', 'utf-8');
    const w = createRejectsWriter(rejectsFiles(path, false, [m]));
    await w.write(
      m,
      { header: ['id', 'name'], delimiter: ',' },
      ['1', 'Ann', 'extra', 'more'],
      'Invalid Record Length: columns 2, got 4',
      2,
    );
    await w.write(m, { header: ['id', 'name'], delimiter: ',' }, ['2'], 'Invalid Closing Quote', 3, '2,"Bob" Jr');
    await w.close();
    expect(readFileSync(path, 'utf8')).toBe(
      'id,name,error\n1,Ann,extra,more,"Invalid Record Length: columns 2, got 4"\n2,"Bob" Jr,Invalid Closing Quote\n',
    );
  });
});
