import { describe, expect, it } from 'vitest';
import { resolveChunk, type ChunkRow } from '../../src/bulk/row-outcomes.js';
import type { ImportStatusReport, ListedRowError } from '../../src/transport/bulk-answers.js';

const rows = (...keys: (string | undefined)[]): ChunkRow[] => keys.map((key) => ({ key }));
const report = (over: Partial<ImportStatusReport>): ImportStatusReport => ({
  importId: 'imp',
  status: 'finished',
  state: 'finished',
  totalCount: undefined,
  succeeded: undefined,
  failed: undefined,
  rowsWithErrors: [],
  ...over,
});
const listed = (
  row: number | undefined,
  data: Record<string, unknown> | undefined,
  message = 'bad',
): ListedRowError => ({ row, data, message });

describe('resolveChunk', () => {
  it('every failure listed and the counts add up: the listed rows failed with their message, the others ok', () => {
    const r = resolveChunk(
      rows('A', 'B', 'C'),
      report({
        totalCount: 3,
        succeeded: 2,
        failed: 1,
        rowsWithErrors: [listed(3, { custom_id: 'B' }, 'email: Enter a valid email address.')],
      }),
    );
    expect(r).toEqual({
      verdicts: [{ kind: 'ok' }, { kind: 'failed', message: 'email: Enter a valid email address.' }, { kind: 'ok' }],
      unnamedFailures: 0,
      uploadAgainWhole: false,
    });
  });

  it('an element without a row number is found by the key it echoes', () => {
    const r = resolveChunk(
      rows('A', 'B'),
      report({ failed: 1, succeeded: 1, rowsWithErrors: [listed(undefined, { custom_id: 'A' })] }),
    );
    expect(r.verdicts).toEqual([{ kind: 'failed', message: 'bad' }, { kind: 'ok' }]);
  });

  it('a contact without custom_id is found by its email (keyFields)', () => {
    const r = resolveChunk(
      rows('C-1', 'x@example.com'),
      report({ failed: 1, succeeded: 1, rowsWithErrors: [listed(undefined, { email: 'x@example.com' })] }),
      ['custom_id', 'email'],
    );
    expect(r.verdicts).toEqual([{ kind: 'ok' }, { kind: 'failed', message: 'bad' }]);
  });

  it('an element with only a row number names no row: how the service numbers rows is not published, so no row is called ok', () => {
    // Read as spreadsheet numbering, row 4 is C; read from 1 or from 0 it is B or none. A wrong guess
    // would call the refused row ok, so every row stays unknown and is uploaded again in smaller chunks.
    const r = resolveChunk(
      rows('A', 'B', 'C'),
      report({ failed: 1, succeeded: 2, rowsWithErrors: [listed(4, undefined)] }),
    );
    expect(r.verdicts.map((v) => v.kind)).toEqual(['unknown', 'unknown', 'unknown']);
    expect(r.unnamedFailures).toBe(1);
  });

  it('the same key twice: the row number picks the row; without one, neither is named', () => {
    const twice = rows('A', 'B', 'A');
    expect(
      resolveChunk(
        twice,
        report({ failed: 1, succeeded: 2, rowsWithErrors: [listed(4, { custom_id: 'A' })] }),
      ).verdicts.map((v) => v.kind),
    ).toEqual(['ok', 'ok', 'failed']);
    expect(
      resolveChunk(twice, report({ failed: 1, succeeded: 2, rowsWithErrors: [listed(undefined, { custom_id: 'A' })] })),
    ).toEqual({
      verdicts: [{ kind: 'unknown' }, { kind: 'unknown' }, { kind: 'unknown' }],
      unnamedFailures: 1,
      uploadAgainWhole: false,
    });
  });

  it('more failures than listed: the listed ones failed, the rest unknown with the number still hidden among them', () => {
    const r = resolveChunk(
      rows('A', 'B', 'C', 'D'),
      report({ failed: 3, succeeded: 1, rowsWithErrors: [listed(2, { custom_id: 'A' })] }),
    );
    expect(r).toEqual({
      verdicts: [{ kind: 'failed', message: 'bad' }, { kind: 'unknown' }, { kind: 'unknown' }, { kind: 'unknown' }],
      unnamedFailures: 2,
      uploadAgainWhole: false,
    });
  });

  it('an element that names no row of the chunk counts as unnamed: no row is called ok', () => {
    const r = resolveChunk(
      rows('A', 'B'),
      report({ failed: 1, succeeded: 1, rowsWithErrors: [listed(undefined, { custom_id: 'Z' })] }),
    );
    expect(r.verdicts.map((v) => v.kind)).toEqual(['unknown', 'unknown']);
    expect(r.unnamedFailures).toBe(1);
  });

  it('a chunk of one row counted as failed: that row failed with the service message, even when the element names nothing', () => {
    expect(
      resolveChunk(
        rows('A'),
        report({ failed: 1, succeeded: 0, rowsWithErrors: [listed(undefined, undefined, 'Invalid row')] }),
      ).verdicts,
    ).toEqual([{ kind: 'failed', message: 'Invalid row' }]);
    expect(resolveChunk(rows('A'), report({ failed: 1, rowsWithErrors: [] })).verdicts).toEqual([
      { kind: 'failed', message: 'the import counted the row as failed without saying why' },
    ]);
  });

  it('an import that ended without finishing: listed rows failed, the rest to upload again whole', () => {
    const r = resolveChunk(
      rows('A', 'B', 'C'),
      report({
        status: 'failed',
        state: 'failed',
        failed: 1,
        succeeded: 0,
        rowsWithErrors: [listed(2, { custom_id: 'A' })],
      }),
    );
    expect(r).toEqual({
      verdicts: [{ kind: 'failed', message: 'bad' }, { kind: 'unknown' }, { kind: 'unknown' }],
      unnamedFailures: 0,
      uploadAgainWhole: true,
    });
  });

  it.each([
    ['succeeded + failed is not the chunk size', { failed: 0, succeeded: 2 }],
    ['more failed than rows', { failed: 4 }],
    [
      'no failed count and a full list of 50 (more may hide)',
      { rowsWithErrors: Array.from({ length: 50 }, () => listed(undefined, undefined)) },
    ],
  ])('counts that do not add up (%s): nothing is called ok, the rows go again whole', (_case, over) => {
    const r = resolveChunk(rows('A', 'B', 'C'), report(over));
    expect(r.verdicts.some((v) => v.kind === 'ok')).toBe(false);
    expect(r.uploadAgainWhole).toBe(true);
  });

  it('no failed count and a short list: the list is taken as complete', () => {
    expect(
      resolveChunk(rows('A', 'B'), report({ rowsWithErrors: [listed(undefined, { custom_id: 'B' })] })).verdicts.map(
        (v) => v.kind,
      ),
    ).toEqual(['ok', 'failed']);
  });
});
