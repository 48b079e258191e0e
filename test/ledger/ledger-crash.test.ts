import { spawn } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readFileSync, statSync, truncateSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { LedgerError } from '../../src/errors.js';
import { createRun, openForResume, type RunIdentity } from '../../src/ledger/index.js';
import { tmpTree } from '../helpers/tmp.js';
import { project } from './_helpers.js';

const ROOT = resolve(import.meta.dirname, '../..');
const CHILD = join(import.meta.dirname, '_crash-child.ts');

/**
 * Runs the child, SIGKILLs it as soon as `killWhen` says so (looking at what it acknowledged
 * as durable), waits for it to be gone, and returns its pid, run folder and acknowledgements.
 */
async function killChild(
  state: string,
  identity: RunIdentity,
  mode: 'one-intent' | 'stream',
  killWhen: (acks: string[]) => boolean,
) {
  const child = spawn(process.execPath, ['--import', 'tsx', CHILD, state, JSON.stringify(identity), mode], {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  let runDir = '';
  const acks: string[] = [];
  const exited = new Promise<void>((r) => child.once('exit', () => r()));
  child.stderr.on('data', (c: Buffer) => (err += c.toString()));
  child.stdout.on('data', (c: Buffer) => {
    out += c.toString();
    const lines = out.split('\n');
    out = lines.pop()!;
    for (const l of lines) {
      if (l.startsWith('run ')) runDir = l.slice(4);
      else acks.push(l);
    }
    if (killWhen(acks) && child.exitCode === null) child.kill('SIGKILL');
  });
  await exited;
  if (runDir === '') throw new Error(`the child did not start a run: ${err}`);
  return { pid: child.pid!, runDir, acks };
}

describe('crash safety (a real process killed with SIGKILL)', () => {
  it('keeps an intent that was acknowledged right before the kill, and the resume takes over the dead lock', async () => {
    const { dir, identity } = await project();
    const state = join(dir, '.engage-import');
    const { pid, runDir, acks } = await killChild(state, identity, 'one-intent', (a) => a.includes('intent 2'));
    expect(acks).toEqual(['intent 2']);
    expect(existsSync(join(state, 'lock'))).toBe(true); // SIGKILL leaves it behind
    const ledger = await openForResume(runDir, identity);
    try {
      expect(ledger.lockTakenOverFrom?.pid).toBe(pid);
      expect(ledger.get(0, 2)).toEqual({ state: 'intent', status: null, id: null, message: null });
      expect(ledger.finished).toBe(false);
    } finally {
      await ledger.close();
    }
  });

  it('loses no acknowledged write when killed in the middle of a stream of intents and outcomes', async () => {
    const { dir, identity } = await project();
    const state = join(dir, '.engage-import');
    const stopAt = 150 + Math.floor(Math.random() * 200);
    const { runDir, acks } = await killChild(state, identity, 'stream', (a) => a.length >= stopAt);
    const ledger = await openForResume(runDir, identity);
    try {
      const lost = acks.filter((ack) => {
        const [what, line] = ack.split(' ') as ['intent' | 'ok', string];
        const entry = ledger.get(0, Number(line));
        return what === 'ok' ? entry?.state !== 'ok' : entry === undefined;
      });
      expect(lost).toEqual([]);
      const c = ledger.counts();
      // Rows the child had not acknowledged may be there too (committed, not yet printed).
      expect(c.ok).toBeGreaterThanOrEqual(acks.filter((a) => a.startsWith('ok')).length);
      expect(c.failed + c.unknown).toBe(0);
    } finally {
      await ledger.close();
    }
  });
});

describe('torn and corrupt ledger files', () => {
  /**
   * A ledger of 60 rows, each in its own commit (intents and outcomes), copied while the run is
   * live (the rows are in the WAL) and again after close (all in the main file).
   */
  async function specimen() {
    const { dir, identity } = await project();
    const state = join(dir, 'source-state');
    const ledger = await createRun(state, identity, () => new Date('2026-11-23T07:15:00Z'));
    for (let line = 2; line < 62; line++) {
      await ledger.recordIntent(0, line);
      await ledger.recordOutcome(
        0,
        line,
        line % 7 === 0
          ? { state: 'failed', status: 400, message: `bad row ${line}` }
          : { state: 'ok', status: 201, id: `id-${line}` },
      );
    }
    const live = tmpTree();
    copyFileSync(ledger.file, join(live, 'ledger.sqlite'));
    copyFileSync(`${ledger.file}-wal`, join(live, 'ledger.sqlite-wal'));
    await ledger.close();
    const closed = tmpTree();
    copyFileSync(ledger.file, join(closed, 'ledger.sqlite'));
    const size = (copy: string, file: string) => statSync(join(copy, file)).size;
    return {
      identity,
      runId: ledger.runId,
      live,
      closed,
      sizes: {
        live: size(live, 'ledger.sqlite'),
        wal: size(live, 'ledger.sqlite-wal'),
        closed: size(closed, 'ledger.sqlite'),
      },
    };
  }

  type Damage = {
    copy: 'live' | 'closed';
    file: 'ledger.sqlite' | 'ledger.sqlite-wal';
    how: 'cut' | 'flip';
    offset: number;
    xor: number;
  };

  /** Puts a damaged copy in a fresh state dir and tries to resume it and use it. */
  async function tryResume(
    s: Awaited<ReturnType<typeof specimen>>,
    d: Damage,
  ): Promise<{ lines: number[] } | LedgerError> {
    const runDir = join(tmpTree(), 'state', 'runs', s.runId);
    mkdirSync(runDir, { recursive: true });
    const from = d.copy === 'live' ? s.live : s.closed;
    for (const f of ['ledger.sqlite', 'ledger.sqlite-wal'])
      if (existsSync(join(from, f))) copyFileSync(join(from, f), join(runDir, f));
    const target = join(runDir, d.file);
    if (d.how === 'cut') truncateSync(target, d.offset);
    else {
      const bytes = readFileSync(target);
      bytes[d.offset] = bytes[d.offset]! ^ d.xor;
      writeFileSync(target, bytes);
    }
    try {
      const ledger = await openForResume(runDir, s.identity);
      try {
        const lines: number[] = [];
        for (let line = 2; line < 62; line++) if (ledger.get(0, line) !== undefined) lines.push(line);
        ledger.counts();
        await ledger.recordIntent(1, 2);
        await ledger.recordOutcome(1, 2, { state: 'ok', status: 201, id: 'x' });
        return { lines };
      } finally {
        await ledger.close();
      }
    } catch (error) {
      if (error instanceof LedgerError) return error;
      throw error; // anything else fails the property
    }
  }

  const expectCleanRefusal = (e: LedgerError, runDir: string) => {
    expect(['LEDGER', 'RESUME_REFUSED']).toContain(e.code);
    if (e.code === 'LEDGER') expect(e.message).toContain(runDir);
  };

  it('recovers from a WAL cut or flipped anywhere: SQLite keeps a prefix of the commits and drops the torn tail', async () => {
    const s = await specimen();
    await fc.assert(
      fc.asyncProperty(
        fc.nat({ max: s.sizes.wal - 1 }),
        fc.constantFrom<'cut' | 'flip'>('cut', 'flip'),
        fc.integer({ min: 1, max: 255 }),
        async (offset, how, xor) => {
          const result = await tryResume(s, { copy: 'live', file: 'ledger.sqlite-wal', how, offset, xor });
          expect(result).not.toBeInstanceOf(LedgerError);
          const { lines } = result as { lines: number[] };
          // Commit k wrote line k + 2 (intent, then outcome): a prefix means lines 2, 3, … with no gap.
          expect(lines).toEqual(Array.from({ length: lines.length }, (_, i) => i + 2));
        },
      ),
      { numRuns: 60 },
    );
  });

  it('recovers or refuses with a LedgerError naming the run, never another error, whatever byte is cut or flipped', async () => {
    const s = await specimen();
    const tally = { recovered: 0, refused: 0 };
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom<'live' | 'closed'>('live', 'closed').chain((copy) =>
          fc.record({
            copy: fc.constant(copy),
            file: fc.constant<'ledger.sqlite'>('ledger.sqlite'),
            how: fc.constantFrom<'cut' | 'flip'>('cut', 'flip'),
            offset: fc.nat({ max: s.sizes[copy] - 1 }),
            xor: fc.integer({ min: 1, max: 255 }),
          }),
        ),
        async (d) => {
          const result = await tryResume(s, d);
          if (result instanceof LedgerError) {
            tally.refused++;
            expectCleanRefusal(result, s.runId);
          } else {
            tally.recovered++;
            // A cut never silently loses a committed row: that row would be sent a second time.
            if (d.how === 'cut') expect(result.lines).toHaveLength(60);
          }
        },
      ),
      { numRuns: 300 },
    );
    console.log(`damaged ledger files: ${tally.recovered} recovered, ${tally.refused} refused cleanly`);
    expect(tally.refused).toBeGreaterThan(0);
  });

  it('says a truncated ledger is damaged and what to do', async () => {
    const s = await specimen();
    const result = await tryResume(s, {
      copy: 'closed',
      file: 'ledger.sqlite',
      how: 'cut',
      offset: Math.floor(s.sizes.closed / 2),
      xor: 1,
    });
    expect(result).toBeInstanceOf(LedgerError);
    const e = result as LedgerError;
    expect(e.code).toBe('LEDGER');
    expect(e.message).toMatch(
      new RegExp(
        `^the run ledger \\S*/runs/${s.runId}/ledger\\.sqlite is damaged \\(.+\\) and cannot tell which rows were sent; ` +
          `move the run folder \\S*/runs/${s.runId} away to start a new run \\(rows that run sent will be sent again: check the account for them first\\)$`,
      ),
    );
  });
});
