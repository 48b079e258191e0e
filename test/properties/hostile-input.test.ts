import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'csv-parse/sync';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/run-cli.js';
import { tmpTree } from '../helpers/tmp.js';

/**
 * Whatever bytes a CSV holds and whatever a mapping file says, the tool answers with a report or
 * a usage error: never an internal error (exit 70), never an exception out of `main`, and in a
 * report every record of the file has its line. Run counts are modest to keep the suite fast;
 * the generators aim at the edges (quotes, line breaks, NUL, BOMs, `sep=`, deep JSON, aliases).
 */
const USERS =
  'resource: user\nsource: { file: data.csv }\nkey: cid\nfields:\n  custom_id: cid\n  email: email\n  data.n: { column: n, type: number }\n  data.j: { column: j, type: json }\n';

const cellBytes = fc.oneof(
  fc.constantFrom(
    'a',
    'Zażółć',
    '"',
    '""',
    ',',
    ';',
    '\r',
    '\n',
    '\r\n',
    '\u0000',
    '12345678901234567890',
    '1e-400',
    '{"a":1,"a":2}',
    `{"a":${'['.repeat(80)}${']'.repeat(80)}}`,
    ' P2 ',
    '=1+1',
    '\uFEFF',
    'sep=;',
  ),
  fc.string({ maxLength: 6 }),
);
const csvText = fc.array(cellBytes, { maxLength: 40 }).map((parts) => `cid,email,n,j\n${parts.join('')}`);
const rawBytes = fc
  .uint8Array({ maxLength: 200 })
  .map((b) => Buffer.concat([Buffer.from('cid,email,n,j\n'), Buffer.from(b)]));

function lineStarts(text: string): number[] {
  // Lines as an editor counts them (CRLF, LF and CR each end one); only an empty line is blank.
  return text
    .split(/\r\n|\n|\r/)
    .map((l, i) => (l === '' ? 0 : i + 1))
    .filter((n) => n > 0);
}

async function validate(dir: string): Promise<{ code: number; stderr: string }> {
  const r = await runCli(['validate', 'm.yaml', '--report', 'r.csv', '--rejects', 'rej.csv'], { cwd: dir });
  expect(r.stderr).not.toContain('internal error');
  expect([0, 1, 2]).toContain(r.code);
  return r;
}

describe('hostile input, generated', () => {
  it.each([
    ['CSV text built from awkward pieces', csvText.map((t) => Buffer.from(t))],
    ['arbitrary bytes after the header', rawBytes],
  ])(
    '%s: no internal error, every record reported once on its own line',
    async (_name, bytes) => {
      await fc.assert(
        fc.asyncProperty(bytes, async (csv) => {
          const dir = tmpTree({ 'm.yaml': USERS, 'data.csv': csv });
          try {
            const r = await validate(dir);
            if (r.code === 2) return;
            const report = parse(readFileSync(join(dir, 'r.csv')), { columns: true, relax_column_count: true }) as {
              line: string;
              status: string;
            }[];
            const lines = report.map((l) => Number(l.line));
            for (let i = 1; i < lines.length; i++) expect(lines[i]).toBeGreaterThan(lines[i - 1]!);
            const nonBlank = new Set(lineStarts(csv.toString('utf8')));
            for (const l of lines) expect(nonBlank.has(l)).toBe(true);
            expect(report.every((l) => l.status === 'valid' || l.status === 'invalid')).toBe(true);
          } finally {
            rmSync(dir, { recursive: true, force: true });
          }
        }),
        { numRuns: 30, seed: 20261123 },
      );
    },
    60_000,
  );

  const value = fc.oneof(
    fc.constantFrom(
      'cid',
      'email',
      '"x"',
      '1',
      'null',
      '[1, 2]',
      '{ a: 1 }',
      '*a',
      '&a x',
      '__proto__',
      'constructor',
      `${'['.repeat(70)}${']'.repeat(70)}`,
      '{ column: cid, type: json }',
      '{ column: cid, type: number, trim: false }',
      '{ value: 3 }',
    ),
    fc.string({ maxLength: 8 }),
  );
  const target = fc.oneof(
    fc.constantFrom(
      'custom_id',
      'email',
      'data.x',
      '__proto__',
      'constructor.prototype.x',
      'a..b',
      'messages.0.title',
      'data',
    ),
    fc.string({ maxLength: 6 }),
  );
  const mappingText = fc
    .record({
      resource: fc.constantFrom('user', 'product', 'deal', 'event', 'nope'),
      fields: fc.array(fc.tuple(target, value), { maxLength: 5 }),
      extra: fc.constantFrom(
        '',
        'key: [cid, cid]\n',
        'source: { file: data.csv, encoding: windows-1250 }\n',
        'x: &a [1]\ny: *a\n',
        '---\n',
      ),
    })
    .map(
      ({ resource, fields, extra }) =>
        `resource: ${resource}\nsource: { file: data.csv }\nkey: cid\n${extra}fields:\n  custom_id: cid\n${fields.map(([t, v]) => `  ${JSON.stringify(t)}: ${v}`).join('\n')}\n`,
    );

  it('mapping files: a report or a usage error, never an internal error or a changed Object.prototype', async () => {
    await fc.assert(
      fc.asyncProperty(mappingText, async (yaml) => {
        const dir = tmpTree({ 'm.yaml': yaml, 'data.csv': 'cid,email\nA1,a@x\n B2 ,\n' });
        try {
          await validate(dir);
          expect(Object.keys(Object.prototype)).toEqual([]);
        } finally {
          rmSync(dir, { recursive: true, force: true });
        }
      }),
      { numRuns: 50, seed: 20261123 },
    );
  }, 60_000);
});
