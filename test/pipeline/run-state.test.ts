import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { RunState, type StopReason } from '../../src/pipeline/run-state.js';
import { ReportWindow, settled, type Settled } from '../../src/pipeline/report-window.js';

const HINT = 'resume with: engage-import resume .engage-import/runs/r1';

describe('RunState.stop: the first reason stands', () => {
  it.each<[string, StopReason[], { stopReason: string | undefined; aborted: string | undefined; fatal: boolean }]>([
    ['nothing', [], { stopReason: undefined, aborted: undefined, fatal: false }],
    [
      '--fail-on-invalid',
      [{ kind: 'invalid', count: 2 }],
      {
        stopReason: 'not sent: --fail-on-invalid and 2 rows are invalid',
        aborted: 'not sent: --fail-on-invalid and 2 rows are invalid',
        fatal: false,
      },
    ],
    [
      'a signal',
      [{ kind: 'signal', name: 'SIGINT' }],
      { stopReason: `not sent: the run was interrupted (SIGINT); ${HINT}`, aborted: undefined, fatal: false },
    ],
    [
      'a 401',
      [{ kind: 'api', message: 'refused (401)' }],
      { stopReason: 'not sent: refused (401)', aborted: `refused (401); ${HINT}`, fatal: true },
    ],
    [
      'the ledger',
      [{ kind: 'ledger', message: 'disk full' }],
      {
        stopReason: 'not sent: the run stopped on an error (disk full)',
        aborted: 'the run stopped: disk full',
        fatal: true,
      },
    ],
    [
      'a signal, then a 401',
      [
        { kind: 'signal', name: 'SIGTERM' },
        { kind: 'api', message: 'refused (401)' },
      ],
      {
        stopReason: `not sent: the run was interrupted (SIGTERM); ${HINT}`,
        aborted: `refused (401); ${HINT}`,
        fatal: true,
      },
    ],
    [
      'a 401, then the ledger',
      [
        { kind: 'api', message: 'refused (401)' },
        { kind: 'ledger', message: 'disk full' },
      ],
      { stopReason: 'not sent: refused (401)', aborted: `refused (401); ${HINT}`, fatal: true },
    ],
  ])('%s', (_name, reasons, expected) => {
    const state = new RunState(() => HINT);
    for (const r of reasons) state.stop(r);
    expect({ stopReason: state.stopReason, aborted: state.aborted, fatal: state.fatal }).toEqual(expected);
  });

  it('a bug keeps its error for the caller to rethrow', () => {
    const state = new RunState(() => HINT);
    const error = new Error('boom');
    state.stop({ kind: 'bug', error });
    state.stop({ kind: 'bug', error: new Error('later') });
    expect(state.failure).toBe(error);
    expect(state.stopReason).toBe('not sent: the run stopped on an error (see the message above)');
  });
});

describe('ReportWindow: lines in input order, whatever order rows settle in', () => {
  it.each([
    ['in order', [1, 2, 3]],
    ['reversed', [3, 2, 1]],
    ['middle last', [1, 3, 2]],
  ])('%s', async (_name, order) => {
    const written: number[] = [];
    const window = new ReportWindow(10, async (s: Settled) => void written.push(s.line.line));
    const resolvers = new Map<number, (s: Settled) => void>();
    for (const line of [1, 2, 3]) window.push(new Promise<Settled>((r) => resolvers.set(line, r)));
    for (const line of order)
      resolvers.get(line)!(settled({ file: 'f.csv', line, resource: 'event', key: `k${line}`, status: 'ok' }));
    await window.drain();
    expect(written).toEqual([1, 2, 3]);
  });

  it('is full at its size', () => {
    const window = new ReportWindow(2, async () => undefined);
    const line = settled({ file: 'f.csv', line: 1, resource: 'event', key: 'k', status: 'ok' });
    window.push(line);
    expect(window.full).toBe(false);
    window.push(line);
    expect(window.full).toBe(true);
  });

  const line = (n: number) => settled({ file: 'f.csv', line: n, resource: 'user', key: `k${n}`, status: 'unchanged' });

  it.each([
    // [what is pushed: w = a line waiting for its answer, s = a settled line], size, held, full after
    ['settled lines behind a waiting one count only against `held`', `w${'s'.repeat(50)}`, 2, 100, false],
    ['waiting lines count against `size`', `wsw${'s'.repeat(5)}`, 2, 100, true],
    ['settled lines reach `held`', `w${'s'.repeat(9)}`, 2, 10, true],
    ['`held` is at least `size`', 'wss', 4, 1, false],
  ])('%s', (_name, pushes, size, held, full) => {
    const window = new ReportWindow(size, async () => undefined, held);
    let n = 0;
    for (const kind of pushes) window.push(kind === 'w' ? new Promise<Settled>(() => undefined) : line(++n));
    expect(window.full).toBe(full);
  });

  /** Writes lines and applies effects (each names its line) in the order the window gives them. */
  function recorder() {
    const written: number[] = [];
    const effects: number[] = [];
    const write = async (s: Settled) => {
      if (s.effect !== undefined && 'succeeded' in s.effect) effects.push(Number(s.effect.succeeded[0]));
      written.push(s.line.line);
    };
    return { written, effects, write };
  }
  const withEffect = (n: number) => settled(line(n).line, { succeeded: [String(n)] });

  it('writes settled lines held behind a waiting one in input order once it settles', async () => {
    const { written, effects, write } = recorder();
    const window = new ReportWindow(1, write, 1000);
    let answer: (s: Settled) => void = () => undefined;
    window.push(new Promise<Settled>((r) => (answer = r)));
    for (let n = 2; n <= 500; n++) window.push(withEffect(n));
    expect(window.headReady).toBe(false);
    expect(window.full).toBe(true);
    answer(withEffect(1));
    await Promise.resolve();
    expect(window.headReady).toBe(true);
    await window.drain();
    const all = Array.from({ length: 500 }, (_, i) => i + 1);
    expect(written).toEqual(all);
    expect(effects).toEqual(all);
    expect(window.full).toBe(false);
  });

  describe('with a spill file', () => {
    let dir: string;
    beforeEach(() => {
      dir = mkdtempSync(join(tmpdir(), 'window-spill-'));
    });
    afterEach(() => rmSync(dir, { recursive: true, force: true }));

    it('holds lines beyond its memory share on disk and writes every line, with its effect, in input order', async () => {
      const { written, effects, write } = recorder();
      const file = join(dir, 'held.ndjson');
      const window = new ReportWindow(4, write, 100_000, { inMemory: 10, file });
      // w s×3000 w s×3000 w s×3000: three rows in flight, 9,000 settled lines between and after them.
      const answers: ((s: Settled) => void)[] = [];
      let n = 0;
      for (let round = 0; round < 3; round++) {
        window.push(new Promise<Settled>((r) => answers.push(r)));
        n++;
        for (let i = 0; i < 3000; i++) window.push(withEffect(++n));
      }
      expect(window.length).toBe(9003);
      expect(window.full).toBe(false);
      // Settled lines beyond the first ten in memory wait on disk; rows in flight always stay in
      // memory (the first is one of the ten, the two others come after the spill began).
      expect(window.spilled).toBe(9003 - 10 - 2);
      // Rows answer out of order; lines still come out in input order.
      answers[2]!(withEffect(6003));
      answers[0]!(withEffect(1));
      answers[1]!(withEffect(3002));
      await window.drain();
      const all = Array.from({ length: 9003 }, (_, i) => i + 1);
      expect(written).toEqual(all);
      expect(effects).toEqual(all);
      window.close();
      expect(existsSync(file)).toBe(false);
    });

    it('whatever the mix of settled lines, rows in flight, answers and writes, every line and effect comes out once, in input order', async () => {
      type Op = { k: 'settled' } | { k: 'row' } | { k: 'answer'; i: number } | { k: 'write' };
      const op = fc.oneof(
        fc.constant<Op>({ k: 'settled' }),
        fc.constant<Op>({ k: 'row' }),
        fc.nat().map<Op>((i) => ({ k: 'answer', i })),
        fc.constant<Op>({ k: 'write' }),
      );
      await fc.assert(
        fc.asyncProperty(fc.array(op, { maxLength: 300 }), fc.integer({ min: 0, max: 6 }), async (ops, inMemory) => {
          const { written, effects, write } = recorder();
          const window = new ReportWindow(1000, write, 100_000, { inMemory, file: join(dir, 'held.ndjson') });
          const pending: { n: number; answer: (s: Settled) => void }[] = [];
          let n = 0;
          const writeReady = async () => {
            await Promise.resolve();
            while (window.headReady) await window.writeHead();
          };
          for (const o of ops) {
            if (o.k === 'settled') window.push(withEffect(++n));
            else if (o.k === 'row') {
              const at = ++n;
              window.push(new Promise<Settled>((answer) => pending.push({ n: at, answer })));
            } else if (o.k === 'answer' && pending.length > 0) {
              const [p] = pending.splice(o.i % pending.length, 1);
              p!.answer(withEffect(p!.n));
            } else if (o.k === 'write') await writeReady();
            expect(window.length).toBe(n - written.length);
          }
          for (const p of pending) p.answer(withEffect(p.n));
          await window.drain();
          window.close();
          const all = Array.from({ length: n }, (_, i) => i + 1);
          expect(written).toEqual(all);
          expect(effects).toEqual(all);
        }),
        { numRuns: 200 },
      );
    });

    it('keeps every field of a spilled line, a message with any text and a failure effect', async () => {
      const lines: Settled[] = [];
      const file = join(dir, 'held.ndjson');
      const window = new ReportWindow(1, async (s) => void lines.push(s), 100, { inMemory: 1, file });
      let answer: (s: Settled) => void = () => undefined;
      window.push(new Promise<Settled>((r) => (answer = r)));
      const spilled = settled(
        {
          file: 'f.csv',
          line: 3,
          resource: 'user',
          key: 'Zoë "Ω"',
          status: 'failed',
          http_status: 400,
          message: 'a,b\nc — ünïcode',
        },
        { failed: ['user\u0000custom_id\u0000Zoë'], failure: { file: 'f.csv', line: 3, how: 'failed' } },
      );
      window.push(line(2));
      window.push(spilled);
      answer(line(1));
      await window.drain();
      expect(lines.map((s) => s.line.line)).toEqual([1, 2, 3]);
      expect(lines[2]).toEqual(spilled);
      window.close();
    });
  });
});
