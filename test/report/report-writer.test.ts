import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'csv-parse/sync';
import { describe, expect, it } from 'vitest';
import { createReportWriter } from '../../src/report/report-writer.js';
import { tmpTree } from '../helpers/tmp.js';

describe('createReportWriter', () => {
  it('writes the header and one RFC 4180 line per row, formula cells neutralised', async () => {
    const path = join(tmpTree(), 'out/report.csv');
    const w = createReportWriter(path);
    await w.write({
      file: 'events.csv',
      line: 2,
      resource: 'event',
      key: 'E-1',
      status: 'ok',
      http_status: 201,
      id: '17',
    });
    await w.write({
      file: 'events.csv',
      line: 5,
      resource: 'event',
      key: '=HYPERLINK("x")',
      status: 'invalid',
      message: 'name: is required; data: expected an object, got "a,b\nc"',
    });
    await w.close();
    const text = readFileSync(path, 'utf8');
    expect(text).toBe(
      'file,line,resource,key,status,http_status,id,message\n' +
        'events.csv,2,event,E-1,ok,201,17,\n' +
        'events.csv,5,event,"\'=HYPERLINK(""x"")",invalid,,,"name: is required; data: expected an object, got ""a,b\nc"""\n',
    );
    const rows = parse(text, { columns: true }) as Record<string, string>[];
    expect(rows[1]?.key).toBe('\'=HYPERLINK("x")');
    expect(rows[1]?.message).toBe('name: is required; data: expected an object, got "a,b\nc"');
  });

  it('streams many rows without losing any', async () => {
    const path = join(tmpTree(), 'r.csv');
    const w = createReportWriter(path);
    for (let i = 0; i < 20_000; i++)
      await w.write({ file: 'f.csv', line: i + 2, resource: 'product', key: `P${i}`, status: 'valid' });
    await w.close();
    expect(readFileSync(path, 'utf8').trimEnd().split('\n')).toHaveLength(20_001);
  });
});
