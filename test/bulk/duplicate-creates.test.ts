/**
 * A later product row with a custom_id an earlier row of the stage carries, on the bulk path:
 * never into a chunk; failed as a per-row create would be once a row created the product; sent
 * per row when none did (the earlier row failed, or its outcome is unknown).
 */
import { describe, expect, it } from 'vitest';
import type { LedgerEntry, Outcome } from '../../src/ledger/index.js';
import { withDuplicateCreates } from '../../src/pipeline/bulk-duplicate-creates.js';
import { settled, type Settled } from '../../src/pipeline/report-window.js';
import type { SendableRow, StageInfo } from '../../src/pipeline/stage-strategy.js';
import type { ReportLine } from '../../src/report/report-line.js';

const stage = { index: 0, mapping: { resource: 'product' }, file: 'products.csv' } as unknown as StageInfo;

const row = (line: number, sku: string) =>
  ({ status: 'valid', line, key: sku, file: 'products.csv', payload: { custom_id: sku } }) as unknown as SendableRow;

/** `answers`: the status each row sent to a chunk (or per row) ends with; each settles when `release` is called. */
function harness(answers: Record<number, ReportLine['status']>) {
  const sent: string[] = [];
  const recorded: [number, Outcome][] = [];
  const rejected: number[] = [];
  const waiting: (() => void)[] = [];
  const state = { stopReason: undefined as string | undefined, ledgerBroke: () => 'broken' };
  const by =
    (how: string) =>
    (r: SendableRow): Promise<Settled> => {
      sent.push(`${how} ${r.line}`);
      return new Promise((resolve) =>
        waiting.push(() =>
          resolve(settled({ file: r.file, line: r.line, resource: 'product', key: r.key, status: answers[r.line]! })),
        ),
      );
    };
  const { send, learn } = withDuplicateCreates(
    stage,
    {
      ledger: { recordOutcome: async (_s: number, line: number, o: Outcome) => void recorded.push([line, o]) },
      state,
      cascade: {
        failed: () => ({ failed: [], failure: { file: 'p.csv', line: 0, how: 'failed' } }),
        succeeded: () => ({ succeeded: [] }),
      },
      reject: (r: SendableRow) => void rejected.push(r.line),
    } as never,
    (r) => r.payload.custom_id as string,
    by('chunk'),
    by('per-row'),
  );
  /** Settles every row sent so far, then lets the waiting ones go on. */
  const release = async () => {
    for (const w of waiting.splice(0)) w();
    await new Promise((r) => setTimeout(r, 0));
  };
  return { send, learn, sent, recorded, rejected, state, release };
}

describe('duplicate product custom_ids on the bulk path', () => {
  it('once a row created the product, later rows with its key are failed as the per-row create is, not sent', async () => {
    const h = harness({ 2: 'ok', 3: 'ok' });
    const lines = [h.send(row(2, 'A'), undefined), h.send(row(3, 'B'), undefined), h.send(row(4, 'A'), undefined)];
    const fifth = h.send(row(5, 'A'), undefined);
    expect(h.sent).toEqual(['chunk 2', 'chunk 3']);
    await h.release();
    const [a, b, c, d] = await Promise.all([...lines, fifth]);
    expect([a, b, c, d].map((s) => s!.line.status)).toEqual(['ok', 'ok', 'failed', 'failed']);
    expect(d!.line.message).toBe(
      'custom_id: product with this custom id already exists. (line 2 of this file already sent this product in this run, and a second create is refused, so this row was not uploaded)',
    );
    expect(h.sent).toEqual(['chunk 2', 'chunk 3']);
    expect(h.recorded.map(([line, o]) => `${line} ${o.state}`)).toEqual(['4 failed', '5 failed']);
    expect(h.rejected).toEqual([4, 5]);
  });

  it('when the earlier row did not create it (failed or unknown), the later row goes per row, and a third waits for that one', async () => {
    const h = harness({ 2: 'failed', 3: 'unknown', 4: 'ok', 5: 'ok' });
    const first = h.send(row(2, 'A'), undefined);
    const other = h.send(row(3, 'B'), undefined);
    const second = h.send(row(4, 'A'), undefined);
    const otherAgain = h.send(row(5, 'B'), undefined);
    const third = h.send(row(6, 'A'), undefined);
    await h.release(); // rows 2 and 3 settle; 4 and 5 go per row
    expect(h.sent).toEqual(['chunk 2', 'chunk 3', 'per-row 4', 'per-row 5']);
    await h.release(); // row 4 created A: row 6 is failed without a request
    const statuses = (await Promise.all([first, other, second, otherAgain, third])).map((s) => s.line.status);
    expect(statuses).toEqual(['failed', 'unknown', 'ok', 'ok', 'failed']);
    expect((await third).line.message).toContain('(line 4 of this file already sent this product');
    expect(h.sent).toHaveLength(4);
  });

  it('a resume learns the products its run created before the crash: a later row with that key is failed, not uploaded', async () => {
    const h = harness({ 5: 'ok', 7: 'ok' });
    // Line 2 was reported from the ledger (ok before the crash); line 3 failed then: it created nothing.
    h.learn(row(2, 'A'), { state: 'ok' } as LedgerEntry);
    h.learn(row(3, 'B'), { state: 'failed' } as LedgerEntry);
    // Line 6 may have created C (its answer was lost): a later C goes per row, as a create.
    h.learn(row(6, 'C'), { state: 'unknown' } as LedgerEntry);
    const a = h.send(row(4, 'A'), undefined);
    const b = h.send(row(5, 'B'), undefined);
    const c = h.send(row(7, 'C'), undefined);
    await h.release();
    await h.release();
    expect((await a).line).toMatchObject({ status: 'failed' });
    expect((await a).line.message).toContain('(line 2 of this file already sent this product');
    expect((await b).line.status).toBe('ok');
    expect((await c).line.status).toBe('ok');
    expect(h.sent).toEqual(['chunk 5', 'per-row 7']);
  });

  it('the run stopped while the later row waited: not_sent, as the per-row path says of rows after a stop', async () => {
    const h = harness({ 2: 'ok' });
    const first = h.send(row(2, 'A'), undefined);
    const later = h.send(row(3, 'A'), undefined);
    h.state.stopReason = 'stopped: interrupted (SIGINT)';
    await h.release();
    expect((await first).line.status).toBe('ok');
    expect((await later).line).toMatchObject({ status: 'not_sent', message: 'stopped: interrupted (SIGINT)' });
    expect(h.recorded).toEqual([]);
  });
});
