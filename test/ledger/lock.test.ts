import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { LedgerError } from '../../src/errors.js';
import { acquireLock } from '../../src/ledger/lock.js';
import { tmpTree } from '../helpers/tmp.js';

/** A pid that existed a moment ago and is gone now: a process that ran and exited. */
function deadPid(): number {
  const child = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' });
  return Number(child.stdout);
}

const caught = (fn: () => unknown): unknown => {
  try {
    fn();
  } catch (error) {
    return error;
  }
  throw new Error('expected a throw');
};

describe('acquireLock', () => {
  it('writes pid, host and start time into <state-dir>/lock and removes it on release', () => {
    const state = tmpTree();
    const lock = acquireLock(state, { now: () => new Date('2026-11-23T07:15:00Z') });
    expect(lock.path).toBe(join(state, 'lock'));
    expect(lock.takenOverFrom).toBeUndefined();
    expect(JSON.parse(readFileSync(lock.path, 'utf8'))).toMatchObject({
      pid: process.pid,
      hostname: hostname(),
      startedAt: '2026-11-23T07:15:00.000Z',
    });
    lock.release();
    expect(existsSync(lock.path)).toBe(false);
    lock.release(); // twice is harmless
    // No temporary files are left behind.
    expect(readdirSync(state)).toEqual([]);
  });

  it('is removed when the process exits through process.exit() without releasing it', () => {
    const state = tmpTree();
    const child = spawnSync(
      process.execPath,
      [
        '--import',
        'tsx',
        '--input-type=module',
        '-e',
        "import { acquireLock } from './src/ledger/lock.ts'; acquireLock(process.argv[1]); process.exit(3)",
        state,
      ],
      { cwd: resolve(import.meta.dirname, '../..'), encoding: 'utf8' },
    );
    expect(child.status).toBe(3);
    expect(readdirSync(state)).toEqual([]);
  });

  it('refuses a second run while the first is alive, naming its pid, host and the lock file', () => {
    const state = tmpTree();
    const first = acquireLock(state, { now: () => new Date('2026-11-23T07:15:00Z') });
    // The boot time is injected: a lock older than the boot would be stale, and the real boot time varies.
    const error = caught(() => acquireLock(state, { cwd: state, bootTime: () => Date.parse('2026-11-01T00:00:00Z') }));
    expect(error).toBeInstanceOf(LedgerError);
    expect((error as LedgerError).code).toBe('STATE_LOCKED');
    expect((error as LedgerError).message).toBe(
      `the state directory ${state} is in use by another engage-import run (pid ${process.pid} on host ${hostname()}, since 2026-11-23T07:15:00.000Z; lock file lock). ` +
        'Wait for it to finish (two runs at once would interleave their ledgers); if that pid is no longer an engage-import run, delete the lock file.',
    );
    first.release();
    const second = acquireLock(state);
    expect(second.takenOverFrom).toBeUndefined();
    second.release();
  });

  it('takes over a lock left by a process that died (SIGKILL leaves the file), and says so', () => {
    const state = tmpTree();
    const pid = deadPid();
    writeFileSync(
      join(state, 'lock'),
      JSON.stringify({ pid, hostname: hostname(), startedAt: new Date().toISOString(), token: 'x' }),
    );
    const lock = acquireLock(state);
    expect(lock.takenOverFrom).toEqual({ pid, hostname: hostname(), startedAt: expect.any(String) });
    expect(JSON.parse(readFileSync(lock.path, 'utf8'))).toMatchObject({ pid: process.pid });
    lock.release();
    expect(readdirSync(state)).toEqual([]);
  });

  it('takes over a lock taken before this host booted, even if its pid now belongs to someone else', () => {
    const state = tmpTree();
    const a = acquireLock(state, { now: () => new Date('2026-11-22T23:00:00Z') });
    const b = acquireLock(state, { bootTime: () => Date.parse('2026-11-23T06:00:00Z'), isAlive: () => true });
    expect(b.takenOverFrom?.startedAt).toBe('2026-11-22T23:00:00.000Z');
    a.release(); // the old holder's release must not remove the new lock
    expect(existsSync(b.path)).toBe(true);
    b.release();
  });

  it('refuses a lock held on another host: its processes cannot be checked from here', () => {
    const state = tmpTree();
    const other = acquireLock(state, { hostname: 'build-07', pid: 4242, now: () => new Date('2026-11-23T07:15:00Z') });
    const error = caught(() => acquireLock(state, { cwd: state, isAlive: () => false })) as LedgerError;
    expect(error.code).toBe('STATE_LOCKED');
    expect(error.message).toBe(
      `the state directory ${state} is in use by another engage-import run (pid 4242 on host build-07, since 2026-11-23T07:15:00.000Z; lock file lock). ` +
        'Its state cannot be checked from this host; if no run is going on there, delete the lock file.',
    );
    other.release();
  });

  it.each([
    ['empty', ''],
    ['not JSON', 'garbage'],
    [
      'a pid that would address a process group',
      JSON.stringify({ pid: 0, hostname: 'h', startedAt: '2026-11-23T07:15:00Z' }),
    ],
  ])('refuses (and keeps) a lock file that cannot be read: %s', (_name, content) => {
    const state = tmpTree({ lock: content });
    const error = caught(() => acquireLock(state, { cwd: state })) as LedgerError;
    expect(error.code).toBe('STATE_LOCKED');
    expect(error.message).toBe(
      `the state directory ${state} has a lock file that cannot be read (lock); if no engage-import run is using this directory, delete that file`,
    );
    expect(readFileSync(join(state, 'lock'), 'utf8')).toBe(content);
  });

  it('after one run took over a stale lock, the next ones are refused by the new holder', () => {
    const state = tmpTree();
    writeFileSync(
      join(state, 'lock'),
      JSON.stringify({ pid: deadPid(), hostname: hostname(), startedAt: new Date().toISOString(), token: 'x' }),
    );
    const results = Array.from({ length: 5 }, (_, i) => {
      try {
        return acquireLock(state, { pid: 1000 + i, isAlive: (pid) => pid >= 1000 && pid < 1005 });
      } catch (error) {
        return error as LedgerError;
      }
    });
    const winners = results.filter((r) => !(r instanceof LedgerError));
    expect(winners).toHaveLength(1);
    expect(results.filter((r) => r instanceof LedgerError).map((e) => (e as LedgerError).code)).toEqual(
      Array(4).fill('STATE_LOCKED'),
    );
    for (const w of winners) (w as { release(): void }).release();
  });
});
