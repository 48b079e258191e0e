import { describe, expect, it } from 'vitest';
import { settleChunk, type ImportAttempt } from '../../src/bulk/settle-chunk.js';
import type { ImportStatusReport } from '../../src/transport/bulk-answers.js';

/**
 * A service that imports rows by the sandbox's rules: the rows in `bad` fail, the first 50
 * failures are listed (`shape` says how much of each element it gives), counts are exact.
 */
function fakeService(
  keys: readonly string[],
  bad: ReadonlySet<string>,
  shape: 'row-and-data' | 'row-only' | 'nothing' = 'row-and-data',
) {
  const uploads: number[][] = [];
  const importOf = (positions: readonly number[]): ImportAttempt => {
    uploads.push([...positions]);
    const failedRows = positions.map((p, i) => ({ p, i })).filter(({ p }) => bad.has(keys[p]!));
    const report: ImportStatusReport = {
      importId: `imp-${uploads.length}`,
      status: 'finished',
      state: 'finished',
      totalCount: positions.length,
      succeeded: positions.length - failedRows.length,
      failed: failedRows.length,
      rowsWithErrors: failedRows.slice(0, 50).map(({ p, i }) => ({
        row: shape === 'nothing' ? undefined : i + 2,
        data: shape === 'row-and-data' ? { custom_id: keys[p] } : undefined,
        message: `email: bad ${keys[p]}`,
      })),
    };
    return { kind: 'ended', importId: report.importId, report };
  };
  return { uploads, importOf };
}

const keys = (n: number) => Array.from({ length: n }, (_, i) => `C-${i}`);

describe('settleChunk', () => {
  it('at most 50 failures: one import names them all, nothing uploaded again', async () => {
    const k = keys(200);
    const bad = new Set(['C-3', 'C-150']);
    const service = fakeService(k, bad);
    const out = await settleChunk(
      k.map((key) => ({ key })),
      service.importOf(k.map((_, i) => i)),
      { uploadAndWait: async (p) => service.importOf(p) },
    );
    expect(service.uploads).toHaveLength(1);
    expect(out.filter((s) => s.kind === 'failed').map((s) => s.kind === 'failed' && s.message)).toEqual([
      'email: bad C-3',
      'email: bad C-150',
    ]);
    expect(out.filter((s) => s.kind === 'ok')).toHaveLength(198);
    expect(out[0]).toEqual({ kind: 'ok', importId: 'imp-1' });
  });

  it('120 failures in one chunk of 2,000: the unnamed ones are found by uploading the unknown rows again in parts; each failure named once with its message', async () => {
    const k = keys(2000);
    const bad = new Set(k.filter((_, i) => i % 16 === 5).slice(0, 120));
    const service = fakeService(k, bad);
    const out = await settleChunk(
      k.map((key) => ({ key })),
      service.importOf(k.map((_, i) => i)),
      { uploadAndWait: async (p) => service.importOf(p) },
    );
    out.forEach((s, i) => {
      if (bad.has(k[i]!)) expect(s).toMatchObject({ kind: 'failed', message: `email: bad ${k[i]}` });
      else expect(s.kind).toBe('ok');
    });
    expect(service.uploads.length).toBeGreaterThan(1);
    expect(service.uploads.length).toBeLessThanOrEqual(12);
  });

  it('elements that name no row (neither number nor values): bisection down to lone rows still names every failure', async () => {
    const k = keys(64);
    const bad = new Set(['C-0', 'C-31', 'C-63']);
    const service = fakeService(k, bad, 'nothing');
    const out = await settleChunk(
      k.map((key) => ({ key })),
      service.importOf(k.map((_, i) => i)),
      { uploadAndWait: async (p) => service.importOf(p) },
    );
    expect(out.map((s, i) => (s.kind === 'failed' ? i : -1)).filter((i) => i >= 0)).toEqual([0, 31, 63]);
    expect(out.filter((s) => s.kind === 'ok')).toHaveLength(61);
  });

  it('an import that ended without finishing is uploaded again whole; after the retries its rows are unknown with the import id', async () => {
    const failing = (id: string): ImportAttempt => ({
      kind: 'ended',
      importId: id,
      report: {
        importId: id,
        status: 'failed',
        state: 'failed',
        totalCount: 2,
        succeeded: 1,
        failed: 0,
        rowsWithErrors: [],
      },
    });
    let n = 0;
    const uploads: (readonly number[])[] = [];
    const out = await settleChunk([{ key: 'A' }, { key: 'B' }], failing('imp-0'), {
      uploadAndWait: async (p) => {
        uploads.push(p);
        return failing(`imp-${++n}`);
      },
    });
    expect(uploads).toEqual([
      [0, 1],
      [0, 1],
    ]);
    expect(out).toEqual([
      {
        kind: 'unknown',
        message:
          'import imp-2: it ended with status "failed", 3 times; it may have applied some rows: resume --resend-unknown uploads them again (safe: the import matches rows by their key)',
        importId: 'imp-2',
      },
      {
        kind: 'unknown',
        message:
          'import imp-2: it ended with status "failed", 3 times; it may have applied some rows: resume --resend-unknown uploads them again (safe: the import matches rows by their key)',
        importId: 'imp-2',
      },
    ]);
  });

  it('a whole import that failed once, then finished: every row gets the second import outcome', async () => {
    const k = keys(3);
    const service = fakeService(k, new Set(['C-1']));
    const first: ImportAttempt = {
      kind: 'ended',
      importId: 'imp-0',
      report: {
        importId: 'imp-0',
        status: 'failed',
        state: 'failed',
        totalCount: 3,
        succeeded: 0,
        failed: 0,
        rowsWithErrors: [],
      },
    };
    const out = await settleChunk(
      k.map((key) => ({ key })),
      first,
      { uploadAndWait: async (p) => service.importOf(p) },
    );
    expect(out.map((s) => s.kind)).toEqual(['ok', 'failed', 'ok']);
  });

  it('a timeout leaves the rows unknown with its message (naming the import); a refused upload fails them', async () => {
    const rows = [{ key: 'A' }, { key: 'B' }];
    expect(
      await settleChunk(
        rows,
        { kind: 'given_up', message: 'import X did not end within 30 min', importId: 'X' },
        { uploadAndWait: async () => ({ kind: 'refused', message: 'n/a' }) },
      ),
    ).toEqual([
      { kind: 'unknown', message: 'import X did not end within 30 min', importId: 'X' },
      { kind: 'unknown', message: 'import X did not end within 30 min', importId: 'X' },
    ]);
    expect(
      (
        await settleChunk(
          rows,
          { kind: 'refused', message: 'input_file: The submitted file is empty.' },
          { uploadAndWait: async () => ({ kind: 'refused', message: 'n/a' }) },
        )
      )[0],
    ).toEqual({
      kind: 'failed',
      message: 'the upload was refused: input_file: The submitted file is empty.',
      importId: undefined,
    });
  });

  it('onImport hears each import and the rows it covered', async () => {
    const k = keys(2);
    const service = fakeService(k, new Set());
    const seen: [string, readonly number[]][] = [];
    await settleChunk(
      k.map((key) => ({ key })),
      service.importOf([0, 1]),
      { uploadAndWait: async (p) => service.importOf(p), onImport: (id, p) => seen.push([id, p]) },
    );
    expect(seen).toEqual([['imp-1', [0, 1]]]);
  });
});
