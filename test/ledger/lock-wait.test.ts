import { existsSync, rmSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { waitForFreeLock, type LockOwner } from '../../src/ledger/lock.js';
import { tmpTree } from '../helpers/tmp.js';

const HOLDER = { pid: 4242, hostname: hostname(), startedAt: '2026-11-24T02:00:00.000Z' };

/** A state directory whose lock is held by `HOLDER` (alive unless the test says otherwise). */
function heldState(): { dir: string; lock: string } {
  const dir = tmpTree();
  const lock = join(dir, 'lock');
  writeFileSync(lock, `${JSON.stringify({ ...HOLDER, token: 'other' })}\n`);
  return { dir, lock };
}

/** Virtual time: each sleep moves the clock, and `at` runs once the clock reaches its time. */
function virtualClock(at?: { ms: number; run: () => void }) {
  let t = 0;
  const sleeps: number[] = [];
  return {
    sleeps,
    now: () => t,
    sleep: async (ms: number) => {
      sleeps.push(ms);
      t += ms;
      if (at !== undefined && t >= at.ms) at.run();
    },
  };
}

const alive = { isAlive: () => true, bootTime: () => 0 };

describe('waitForFreeLock', () => {
  it('waits while a live process holds the lock and goes on once it lets go, saying once who held it', async () => {
    const { dir, lock } = heldState();
    const clock = virtualClock({ ms: 600, run: () => rmSync(lock, { force: true }) });
    const told: LockOwner[] = [];
    const free = await waitForFreeLock(dir, { ms: 60_000, ...clock, onWait: (h) => told.push(h) }, alive);
    expect(free).toBe(true);
    expect(told).toEqual([HOLDER]);
    // Looked again every 250 ms until the holder let go at 600 ms.
    expect(clock.sleeps).toEqual([250, 250, 250]);
  });

  it('gives up after the time allowed, leaving the lock to refuse with its holder', async () => {
    const { dir, lock } = heldState();
    const clock = virtualClock();
    expect(await waitForFreeLock(dir, { ms: 1_000, ...clock }, alive)).toBe(false);
    expect(clock.sleeps.reduce((a, b) => a + b, 0)).toBe(1_000);
    expect(existsSync(lock)).toBe(true);
  });

  it('does not wait with no lock, a lock left by a dead process, or a wait of 0', async () => {
    const told: LockOwner[] = [];
    const clock = virtualClock();
    const wait = { ms: 60_000, ...clock, onWait: (h: LockOwner) => told.push(h) };
    expect(await waitForFreeLock(tmpTree(), wait, alive)).toBe(true);
    expect(await waitForFreeLock(heldState().dir, wait, { isAlive: () => false, bootTime: () => 0 })).toBe(true);
    expect(await waitForFreeLock(heldState().dir, { ...wait, ms: 0 }, alive)).toBe(false);
    expect([clock.sleeps, told]).toEqual([[], []]);
  });

  it('stops waiting when the run is interrupted', async () => {
    const { dir } = heldState();
    const stop = new AbortController();
    const clock = virtualClock({ ms: 500, run: () => stop.abort() });
    expect(await waitForFreeLock(dir, { ms: 60_000, ...clock, signal: stop.signal }, alive)).toBe(false);
    expect(clock.sleeps).toEqual([250, 250]);
  });

  it('does not wait for a lock file it cannot read: taking the lock says what to do with it', async () => {
    const dir = tmpTree();
    writeFileSync(join(dir, 'lock'), 'not json');
    const clock = virtualClock();
    expect(await waitForFreeLock(dir, { ms: 60_000, ...clock }, alive)).toBe(false);
    expect(clock.sleeps).toEqual([]);
  });
});
