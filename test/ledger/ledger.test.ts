import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { LedgerError } from '../../src/errors.js';
import { createRun, openForResume, readRun, type OpenLedger } from '../../src/ledger/index.js';
import { identityOf, project } from './_helpers.js';

const at = () => new Date('2026-11-23T07:15:00Z');
const open: OpenLedger[] = [];
afterEach(async () => {
  await Promise.allSettled(open.splice(0).map((l) => l.close()));
});
async function started(): Promise<{
  dir: string;
  state: string;
  ledger: OpenLedger;
  identity: Awaited<ReturnType<typeof project>>['identity'];
}> {
  const { dir, identity } = await project();
  const state = join(dir, '.engage-import');
  const ledger = await createRun(state, identity, at, { cwd: dir });
  open.push(ledger);
  return { dir, state, ledger, identity };
}
const rejection = (p: Promise<unknown>) =>
  p.then(
    () => undefined,
    (e: unknown) => e as LedgerError,
  );

describe('createRun', () => {
  it('makes <state-dir>/runs/<run-id>/ledger.sqlite in WAL mode, holding the identity, unfinished, locked', async () => {
    const { state, ledger, identity } = await started();
    expect(ledger.runId).toMatch(/^20261123T071500Z-[0-9a-f]{4}$/);
    expect(ledger.runDir).toBe(join(state, 'runs', ledger.runId));
    expect(ledger.file).toBe(join(ledger.runDir, 'ledger.sqlite'));
    expect(ledger.finished).toBe(false);
    expect(ledger.identity).toEqual(identity);
    expect(ledger.lockTakenOverFrom).toBeUndefined();
    expect(readdirSync(state).sort()).toEqual(['lock', 'runs']);
    const peek = new Database(ledger.file, { readonly: true });
    expect(peek.pragma('journal_mode', { simple: true })).toBe('wal');
    peek.close();
  });
});

describe('createRun failures', () => {
  it('says when the state directory cannot be made (a file is in the way)', async () => {
    const { dir, identity } = await project();
    writeFileSync(join(dir, 'state'), 'not a folder');
    const error = await rejection(createRun(join(dir, 'state'), identity, at, { cwd: dir }));
    expect(error).toBeInstanceOf(LedgerError);
    expect(error?.code).toBe('LEDGER');
    expect(error?.message).toMatch(/^cannot create the state directory state\/runs: ENOTDIR/);
  });
});

describe('recording rows', () => {
  it('round-trips intents and outcomes across close and reopen', async () => {
    const { dir, ledger, identity } = await started();
    await Promise.all([
      ledger.recordIntent(0, 2),
      ledger.recordIntent(0, 3),
      ledger.recordIntent(0, 4),
      ledger.recordIntent(1, 2),
      ledger.recordIntent(1, 5),
    ]);
    await Promise.all([
      ledger.recordOutcome(0, 2, { state: 'ok', status: 201, id: '9001' }),
      ledger.recordOutcome(0, 3, {
        state: 'failed',
        status: 400,
        message: "user_id: Client user with ID '77' does not exist",
      }),
      ledger.recordOutcome(0, 4, { state: 'unknown', message: 'the connection was reset after the request was sent' }),
      ledger.recordOutcome(1, 2, { state: 'ok', status: 200, id: undefined }),
    ]);
    await ledger.close();

    const again = await openForResume(ledger.runDir, identity, { cwd: dir });
    open.push(again);
    expect(again.runId).toBe(ledger.runId);
    expect(again.finished).toBe(false);
    expect([
      again.get(0, 2),
      again.get(0, 3),
      again.get(0, 4),
      again.get(1, 2),
      again.get(1, 5),
      again.get(1, 6),
    ]).toEqual([
      { state: 'ok', status: 201, id: '9001', message: null },
      { state: 'failed', status: 400, id: null, message: "user_id: Client user with ID '77' does not exist" },
      { state: 'unknown', status: null, id: null, message: 'the connection was reset after the request was sent' },
      { state: 'ok', status: 200, id: null, message: null },
      { state: 'intent', status: null, id: null, message: null },
      undefined,
    ]);
    expect(again.counts()).toEqual({ intent: 1, ok: 2, failed: 1, unknown: 1 });
  });

  it('commits N intents requested in one tick in ONE transaction, and their outcomes in one more', async () => {
    const { ledger } = await started();
    const before = ledger.commits;
    await Promise.all(Array.from({ length: 100 }, (_, i) => ledger.recordIntent(0, i + 2)));
    expect(ledger.commits - before).toBe(1);
    await Promise.all(
      Array.from({ length: 100 }, (_, i) =>
        ledger.recordOutcome(0, i + 2, { state: 'ok', status: 201, id: String(i) }),
      ),
    );
    expect(ledger.commits - before).toBe(2);
    expect(ledger.counts()).toEqual({ intent: 0, ok: 100, failed: 0, unknown: 0 });
  });

  it('records a chunk of intents and their outcomes with one call each, one transaction each, refusing the whole chunk when a row is ok already', async () => {
    const { ledger } = await started();
    const lines = Array.from({ length: 5000 }, (_, i) => i + 2);
    const before = ledger.commits;
    await ledger.recordIntents(0, lines);
    expect(ledger.commits - before).toBe(1);
    expect(ledger.get(0, 5001)).toEqual({ state: 'intent', status: null, id: null, message: null });
    const done = ledger.recordOutcomes(
      0,
      lines.map((line) =>
        line === 3
          ? { line, outcome: { state: 'failed', message: 'refused' } }
          : { line, outcome: { state: 'ok', message: 'imported by bulk import x' } },
      ),
    );
    // Queued, and shown already.
    expect(ledger.get(0, 3)).toEqual({ state: 'failed', status: null, id: null, message: 'refused' });
    await done;
    expect(ledger.commits - before).toBe(2);
    expect(ledger.counts()).toEqual({ intent: 0, ok: 4999, failed: 1, unknown: 0 });
    const error = await rejection(ledger.recordIntents(1, [2]).then(() => ledger.recordIntents(0, [3, 4])));
    expect(error?.message).toBe(
      'refusing to send line 4 of source 0 again: the run ledger says it was applied already (HTTP ?)',
    );
    expect(ledger.get(0, 3)?.state).toBe('failed');
    expect(ledger.get(1, 2)?.state).toBe('intent');
    await expect(ledger.recordIntents(0, [0])).rejects.toThrow('line must be an integer >= 1, got 0');
  });

  it('shows queued writes in get() and counts() before they are committed', async () => {
    const { ledger } = await started();
    await ledger.recordIntent(0, 2);
    const done = ledger.recordOutcome(0, 2, { state: 'ok', status: 201, id: '1' });
    const intent = ledger.recordIntent(0, 3);
    expect(ledger.get(0, 2)).toEqual({ state: 'ok', status: 201, id: '1', message: null });
    expect(ledger.get(0, 3)?.state).toBe('intent');
    expect(ledger.counts()).toEqual({ intent: 1, ok: 1, failed: 0, unknown: 0 });
    await Promise.all([done, intent]);
    expect(ledger.counts()).toEqual({ intent: 1, ok: 1, failed: 0, unknown: 0 });
  });

  it('counts rows unknown for a given reason, queued writes included', async () => {
    const { ledger } = await started();
    await ledger.recordIntents(0, [2, 3, 4]);
    await ledger.recordOutcome(0, 2, { state: 'unknown', message: 'exists.; WHY' });
    await ledger.recordOutcome(0, 3, { state: 'unknown', message: 'a 500; another reason' });
    const queued = ledger.recordOutcome(0, 4, { state: 'unknown', message: 'exists.; WHY' });
    expect(ledger.countUnknownBecause('WHY')).toBe(2);
    await queued;
    expect(ledger.countUnknownBecause('WHY')).toBe(2);
    // Resent and ok now: no longer counted, before and after its commit.
    await ledger.recordIntent(0, 2);
    const resent = ledger.recordOutcome(0, 2, { state: 'ok', status: 201 });
    expect(ledger.countUnknownBecause('WHY')).toBe(1);
    await resent;
    expect(ledger.countUnknownBecause('WHY')).toBe(1);
  });

  it('refuses a second intent for a row that is ok already (a duplicate send), but allows one after unknown or failed', async () => {
    const { ledger } = await started();
    await ledger.recordIntent(0, 2);
    await ledger.recordOutcome(0, 2, { state: 'ok', status: 201, id: '42' });
    const error = await rejection(ledger.recordIntent(0, 2));
    expect(error).toBeInstanceOf(LedgerError);
    expect(error?.message).toBe(
      'refusing to send line 2 of source 0 again: the run ledger says it was applied already (HTTP 201, id 42)',
    );
    await ledger.recordOutcome(0, 3, { state: 'unknown', message: 'timeout' });
    await ledger.recordIntent(0, 3); // --resend-unknown
    expect(ledger.get(0, 3)).toEqual({ state: 'intent', status: null, id: null, message: null });
  });

  it('refuses a chunk of intents when one of its rows is ok, committed or still queued, and names that line', async () => {
    const { ledger } = await started();
    const lines = Array.from({ length: 2000 }, (_, i) => i + 2);
    await ledger.recordIntents(0, lines);
    await ledger.recordOutcome(0, 1500, { state: 'ok', status: 201, id: '7' });
    await ledger.recordOutcome(0, 900, { state: 'ok', status: 201, id: '8' });
    const stored = await rejection(ledger.recordIntents(0, lines));
    expect(stored?.message).toBe(
      'refusing to send line 900 of source 0 again: the run ledger says it was applied already (HTTP 201, id 8)',
    );
    const queued = ledger.recordOutcome(0, 2001, { state: 'ok', status: 201, id: '9' });
    const pending = await rejection(ledger.recordIntents(0, [2000, 2001]));
    expect(pending?.message).toBe(
      'refusing to send line 2001 of source 0 again: the run ledger says it was applied already (HTTP 201, id 9)',
    );
    await queued;
    // Rows not applied take a new intent: failed, unknown, or never seen.
    await ledger.recordOutcome(0, 2, { state: 'failed', status: 400, message: 'bad' });
    await ledger.recordIntents(0, [2, 3, 5000]);
    expect(ledger.get(0, 5000)?.state).toBe('intent');
  });

  it('forget() drops an intent whose request never left, and nothing else', async () => {
    const { ledger } = await started();
    await Promise.all([ledger.recordIntent(0, 2), ledger.recordIntent(0, 3)]);
    await ledger.recordOutcome(0, 3, { state: 'failed', status: 400, message: 'bad' });
    await Promise.all([ledger.forget(0, 2), ledger.forget(0, 3), ledger.forget(0, 4)]);
    expect(ledger.get(0, 2)).toBeUndefined();
    expect(ledger.get(0, 3)?.state).toBe('failed');
    expect(ledger.counts()).toEqual({ intent: 0, ok: 0, failed: 1, unknown: 0 });
  });

  it.each([
    [-1, 2, 'source must be an integer >= 0, got -1'],
    [0, 0, 'line must be an integer >= 1, got 0'],
    [0, 1.5, 'line must be an integer >= 1, got 1.5'],
  ])('rejects a bad row address (%d, %d)', async (source, line, message) => {
    const { ledger } = await started();
    await expect(ledger.recordIntent(source, line)).rejects.toThrow(message);
  });

  it('refuses writes after close', async () => {
    const { ledger } = await started();
    await ledger.close();
    const error = await rejection(ledger.recordIntent(0, 2));
    expect(error).toBeInstanceOf(LedgerError);
    expect(error?.message).toBe(`the run ledger .engage-import/runs/${ledger.runId}/ledger.sqlite is closed`);
  });

  it('close() commits what is queued and leaves one checkpointed file', async () => {
    const { identity, ledger } = await started();
    void ledger.recordIntent(0, 2);
    await ledger.close();
    await ledger.close(); // twice is harmless
    expect(readdirSync(ledger.runDir)).toEqual(['ledger.sqlite']);
    const again = await openForResume(ledger.runDir, identity);
    open.push(again);
    expect(again.get(0, 2)?.state).toBe('intent');
  });
});

describe('finishing', () => {
  it('marks the run finished, durably', async () => {
    const { ledger, identity } = await started();
    await ledger.markFinished();
    expect(ledger.finished).toBe(true);
    await ledger.close();
    expect(readRun(ledger.runDir)?.finished).toBe(true);
    const again = await openForResume(ledger.runDir, identity);
    open.push(again);
    expect(again.finished).toBe(true);
  });
});

describe('the lock', () => {
  it('refuses a second run on the same state directory while the first is open, and allows it after close', async () => {
    const { dir, state, ledger, identity } = await started();
    const error = await rejection(createRun(state, identity, at, { cwd: dir }));
    expect(error).toBeInstanceOf(LedgerError);
    expect(error?.code).toBe('STATE_LOCKED');
    expect(error?.message).toContain(`is in use by another engage-import run (pid ${process.pid} on host `);
    expect(error?.message).toContain('lock file .engage-import/lock)');
    const resume = await rejection(openForResume(ledger.runDir, identity, { cwd: dir }));
    expect(resume?.code).toBe('STATE_LOCKED');
    await ledger.close();
    const next = await createRun(state, identity, at);
    open.push(next);
    expect(readdirSync(join(state, 'runs'))).toEqual([ledger.runId, next.runId]);
  });
});

describe('openForResume', () => {
  it('refuses when an input changed, saying which and how', async () => {
    const { dir, ledger } = await started();
    await ledger.recordIntent(0, 2);
    await ledger.close();
    writeFileSync(join(dir, 'samples/events.csv'), 'row,customer,event\nR-1,C-1,Order Placed\nR-2,C-2,Order Placed\n');
    const error = await rejection(openForResume(ledger.runDir, await identityOf(dir), { cwd: dir }));
    expect(error).toBeInstanceOf(LedgerError);
    expect(error?.code).toBe('RESUME_REFUSED');
    expect(error?.message).toBe(
      `cannot resume the run in .engage-import/runs/${ledger.runId}: samples/events.csv changed since the run started (size 40 → 61 bytes; sha256 differs). ` +
        'Put back what the run started with to resume it, or move the run folder away to start a new run (a plain run sends every row again; an incremental one skips the rows this run had accepted, but sends again those in flight when it stopped)',
    );
  });

  it('refuses when a mapping and a payload option changed, listing both', async () => {
    const { dir, ledger } = await started();
    await ledger.close();
    writeFileSync(join(dir, 'mappings/events.yaml'), 'resource: event\nsource: { file: ../samples/other.csv }\n');
    const error = await rejection(
      openForResume(ledger.runDir, await identityOf(dir, { 'deal-update-method': 'PUT', limit: null }), { cwd: dir }),
    );
    expect(error?.message).toBe(
      `cannot resume the run in .engage-import/runs/${ledger.runId}: mapping mappings/events.yaml changed; option deal-update-method was PATCH, now PUT. ` +
        'Put back what the run started with to resume it, or move the run folder away to start a new run (a plain run sends every row again; an incremental one skips the rows this run had accepted, but sends again those in flight when it stopped)',
    );
  });

  it('releases the lock when it refuses, so the user can fix things and try again', async () => {
    const { dir, state, ledger, identity } = await started();
    await ledger.close();
    await rejection(openForResume(ledger.runDir, { ...identity, options: { other: 1 } }));
    expect(readdirSync(state)).toEqual(['runs']);
    const again = await openForResume(ledger.runDir, identity, { cwd: dir });
    open.push(again);
  });

  it('refuses an empty ledger file as damaged (SQLite would take it for a new database)', async () => {
    const { dir, ledger, identity } = await started();
    await ledger.close();
    writeFileSync(ledger.file, '');
    const error = await rejection(openForResume(ledger.runDir, identity, { cwd: dir }));
    expect(error?.code).toBe('LEDGER');
    expect(error?.message).toBe(
      `the run ledger .engage-import/runs/${ledger.runId}/ledger.sqlite is damaged (the file is empty) and cannot tell which rows were sent; ` +
        `move the run folder .engage-import/runs/${ledger.runId} away to start a new run (rows that run sent will be sent again: check the account for them first)`,
    );
  });

  it('refuses a folder without a ledger', async () => {
    const { dir, identity } = await project();
    const error = await rejection(openForResume(join(dir, 'runs', 'nope'), identity, { cwd: dir }));
    expect(error?.code).toBe('RESUME_REFUSED');
    expect(error?.message).toBe('cannot resume: there is no run ledger in runs/nope');
  });
});

describe('secrets', () => {
  it('never writes the API key anywhere in the state directory, during or after a full cycle', async () => {
    const canary = `canary-${'k'.repeat(57)}`;
    const saved = process.env.ENGAGE_API_KEY;
    process.env.ENGAGE_API_KEY = canary;
    try {
      const { dir, state, identity } = await started();
      const ledger = open[0]!;
      const everything = () => {
        const found: string[] = [];
        const walk = (d: string) => {
          for (const name of readdirSync(d)) {
            const p = join(d, name);
            if (statSync(p).isDirectory()) walk(p);
            else if (readFileSync(p).includes(canary)) found.push(p);
          }
        };
        walk(state);
        return found;
      };
      await Promise.all([ledger.recordIntent(0, 2), ledger.recordIntent(0, 3), ledger.recordIntent(0, 4)]);
      await ledger.recordOutcome(0, 2, { state: 'ok', status: 201, id: '1' });
      await ledger.recordOutcome(0, 3, { state: 'failed', status: 401, message: 'Invalid token.' });
      expect(everything()).toEqual([]); // WAL, -shm and lock while the run is live
      await ledger.close();
      const again = await openForResume(ledger.runDir, identity, { cwd: dir });
      await again.recordOutcome(0, 4, { state: 'unknown', message: 'interrupted' });
      await again.markFinished();
      await again.close();
      expect(everything()).toEqual([]);
      expect(readdirSync(join(ledger.runDir))).toEqual(['ledger.sqlite']);
    } finally {
      if (saved === undefined) delete process.env.ENGAGE_API_KEY;
      else process.env.ENGAGE_API_KEY = saved;
    }
  });
});
