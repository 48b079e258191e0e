import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { stringify } from 'csv-stringify/sync';
import { parse } from 'csv-parse/sync';
import iconv from 'iconv-lite';
import { describe, expect, it } from 'vitest';
import { loadJob } from '../../src/config/load-job.js';
import type { ResolvedMapping } from '../../src/config/mapping-schema.js';
import { runDryRun } from '../../src/pipeline/dry-run.js';
import { createRejectsWriter, rejectsFiles } from '../../src/report/rejects-writer.js';
import { openCsv } from '../../src/source/csv-source.js';
import { tmpTree } from '../helpers/tmp.js';

/** Cells as exports have them: any text, commas, quotes, line breaks, leading `=` or `-`. */
const cell = fc.oneof(
  fc.string({ maxLength: 12 }),
  fc.constantFrom('', '=SUM(A1)', '-12,5', '"quoted"', 'a\nb', 'x\r\ny', 'lone\rcr', ' padded ', 'Łódź;ż'),
);
const header = ['id', 'name', 'note'];

describe('properties (fast-check)', () => {
  it('a rejects file read back by the reader gives the same cells (utf-8 and windows-1250, , and ;)', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.tuple(cell, cell, cell), { minLength: 1, maxLength: 15 }),
        fc.constantFrom([',', 'utf-8'], [';', 'windows-1250']),
        async (rows, [delimiter, encoding]) => {
          const dir = tmpTree();
          const path = join(dir, 'rejects.csv');
          const mapping = {
            mappingFile: 'm.yaml',
            resource: 'product',
            operation: undefined,
            key: ['id'],
            fields: [],
            source: { path: 'x.csv', delimiter, encoding },
          } as unknown as ResolvedMapping;
          // windows-1250 cannot hold every character: keep to what it can, as a real export would.
          const fit = (s: string) =>
            encoding === 'utf-8' ? s : iconv.decode(iconv.encode(s, encoding), encoding).replaceAll('?', '');
          const cells = rows.map((r) => r.map(fit));
          const w = createRejectsWriter(rejectsFiles(path, false, [mapping]));
          for (const r of cells) await w.write(mapping, { header, delimiter }, r, 'error text');
          await w.close();
          const source = await openCsv({ path, delimiter: delimiter as ',' | ';', encoding });
          expect(source.header).toEqual([...header, 'error']);
          const back: string[][] = [];
          for await (const item of source.items) {
            expect(item.kind).toBe('row');
            back.push([...item.fields.slice(0, 3)]);
          }
          expect(back).toEqual(cells);
        },
      ),
      { numRuns: 40 },
    );
  });

  it('every input record yields exactly one report line, in input order, even with malformed records', async () => {
    const record = fc.oneof(
      { weight: 5, arbitrary: fc.tuple(cell, cell, cell) },
      { weight: 1, arbitrary: fc.array(cell, { minLength: 1, maxLength: 5 }) },
    );
    await fc.assert(
      fc.asyncProperty(fc.array(record, { minLength: 0, maxLength: 25 }), async (records) => {
        const dir = tmpTree({
          'm.yaml': 'resource: product\nsource: { file: p.csv }\nkey: id\nfields: { custom_id: id, name: name }\n',
        });
        const body = records.map((r) => stringify([r]).replace(/\n$/, '')).join('\n');
        writeFileSync(join(dir, 'p.csv'), `${header.join(',')}\n${body}${records.length > 0 ? '\n' : ''}`);
        // How many records csv-parse itself sees (blank lines are no record).
        const expected =
          (parse(readFileSync(join(dir, 'p.csv')), { relax_column_count: true, skip_empty_lines: true }) as string[][])
            .length - 1;
        const summary = await runDryRun(await loadJob(join(dir, 'm.yaml')), {
          cwd: dir,
          report: join(dir, 'r.csv'),
          rate: 10,
        });
        const lines = (parse(readFileSync(join(dir, 'r.csv')), { columns: true }) as { line: string }[]).map((l) =>
          Number(l.line),
        );
        expect(lines).toHaveLength(expected);
        expect(summary.totals.valid + summary.totals.invalid).toBe(expected);
        for (let i = 1; i < lines.length; i++) expect(lines[i]!).toBeGreaterThan(lines[i - 1]!);
      }),
      { numRuns: 60 },
    );
  });
});
