import { describe, expect, it } from 'vitest';
import { TokenBucket } from '../../src/transport/token-bucket.js';
import { manualClock } from './_fake-clock.js';

function setup(rate = 10) {
  const clock = manualClock();
  const bucket = new TokenBucket({ rate, now: clock.now, sleep: clock.sleep });
  const granted: number[] = [];
  const take = (signal = new AbortController().signal) =>
    bucket.take(signal).then((ok) => {
      if (ok) granted.push(clock.now());
      return ok;
    });
  return { clock, bucket, granted, take };
}

describe('TokenBucket', () => {
  it('spreads concurrent callers evenly at the rate, with no burst', async () => {
    const { clock, granted, take } = setup(10);
    const all = Promise.all(Array.from({ length: 5 }, () => take()));
    await clock.advance(1000);
    await all;
    expect(granted).toEqual([0, 100, 200, 300, 400]);
  });

  it('does not save up slots while idle', async () => {
    const { clock, granted, take } = setup(4);
    await take();
    await clock.advance(5000);
    const all = Promise.all([take(), take(), take()]);
    await clock.advance(1000);
    await all;
    expect(granted).toEqual([0, 5000, 5250, 5500]);
  });

  it('holds everyone during a pause, then spreads them evenly from its end', async () => {
    const { clock, bucket, granted, take } = setup(10);
    const all = Promise.all(Array.from({ length: 4 }, () => take()));
    await clock.advance(0);
    expect(granted).toEqual([0]);
    bucket.pauseUntil(2000); // a 429 with retry-after: 2
    await clock.advance(5000);
    await all;
    expect(granted).toEqual([0, 2000, 2100, 2200]);
  });

  it('never shortens a pause', async () => {
    const { clock, bucket, granted, take } = setup(10);
    bucket.pauseUntil(3000);
    bucket.pauseUntil(1000);
    expect(bucket.pausedUntil()).toBe(3000);
    const one = take();
    await clock.advance(4000);
    await one;
    expect(granted).toEqual([3000]);
    expect(bucket.pausedUntil()).toBeUndefined();
  });

  it('gives up the wait when the signal aborts, during a pause too', async () => {
    const { clock, bucket, take } = setup(1);
    const controller = new AbortController();
    await take(controller.signal);
    bucket.pauseUntil(60_000);
    const waiting = take(controller.signal);
    await clock.advance(10);
    controller.abort();
    expect(await waiting).toBe(false);
    expect(await take(controller.signal)).toBe(false);
    expect(clock.now()).toBe(10);
  });

  it.each([0, -1, Number.NaN, Number.POSITIVE_INFINITY])('refuses rate %d', (rate) => {
    expect(() => new TokenBucket({ rate, now: () => 0, sleep: async () => undefined })).toThrow(RangeError);
  });
});

describe('TokenBucket, a caller that wakes late', () => {
  /** A clock whose sleepers wake only when the test says, at the time it says (later than due, say). */
  function lateClock() {
    let t = 0;
    let sleepers: { at: number; wake: () => void }[] = [];
    return {
      now: () => t,
      sleep: (ms: number) => new Promise<void>((wake) => sleepers.push({ at: t + ms, wake })),
      /** Sets the time to `at` and wakes every sleeper due by `due` (default: by `at`). */
      async wakeAt(at: number, due = at) {
        t = at;
        const woken = sleepers.filter((s) => s.at <= due);
        sleepers = sleepers.filter((s) => s.at > due);
        for (const s of woken) s.wake();
        for (let i = 0; i < 10; i++) await new Promise((r) => setImmediate(r));
      },
    };
  }

  /** Three callers at once at 10 requests/s (3% headroom) on that clock; `granted`: when each was let through. */
  function threeCallers() {
    const clock = lateClock();
    const bucket = new TokenBucket({ rate: 10, headroom: 0.03, now: clock.now, sleep: clock.sleep });
    const granted: number[] = [];
    const signal = new AbortController().signal;
    const all = Promise.all(Array.from({ length: 3 }, () => bucket.take(signal).then(() => granted.push(clock.now()))));
    return { clock, granted, all };
  }

  it('restarts the schedule from a permission that came late, so the next caller keeps its distance and no eleven requests share a second', async () => {
    const { clock, granted, all } = threeCallers();
    await clock.wakeAt(0);
    expect(granted).toEqual([0]);
    // The second caller's slot (103 ms) comes while the event loop is busy: its timer fires at 150.
    await clock.wakeAt(150, 103.1);
    expect(granted).toEqual([0, 150]);
    // The third caller's slot would have been 206 ms, only 56 ms after the second actually went:
    // the schedule starts again from the latest slot the second could have had (150 less the
    // 15.5 ms of lateness the headroom allows), so the third comes at 237.6.
    await clock.wakeAt(206.2);
    await clock.wakeAt(237);
    expect(granted).toEqual([0, 150]);
    await clock.wakeAt(238);
    await all;
    expect(granted).toEqual([0, 150, 238]);
  });

  it('does not wait on a timer that fires a little late, within the headroom', async () => {
    const { clock, granted, all } = threeCallers();
    await clock.wakeAt(0);
    await clock.wakeAt(104, 103.1);
    await clock.wakeAt(207, 206.2);
    await all;
    expect(granted).toEqual([0, 104, 207]);
  });
});

describe('TokenBucket, callers that give up', () => {
  it('paces a caller that asks while the loop of callers who all gave up still sleeps', async () => {
    // A sleep that ignores the signal: the loop wakes only when its time comes.
    let t = 0;
    const timers: { at: number; wake: () => void }[] = [];
    const sleep = (ms: number) => new Promise<void>((wake) => timers.push({ at: t + ms, wake }));
    const bucket = new TokenBucket({ rate: 10, now: () => t, sleep });
    expect(await bucket.take(new AbortController().signal)).toBe(true);
    const quitter = new AbortController();
    const gaveUp = bucket.take(quitter.signal);
    quitter.abort();
    expect(await gaveUp).toBe(false);
    const later = bucket.take(new AbortController().signal);
    const fired = async (until: number) => {
      t = until;
      for (const timer of timers.splice(0).filter((x) => x.at <= until)) timer.wake();
      for (let i = 0; i < 10; i++) await new Promise((r) => setImmediate(r));
    };
    await fired(100);
    expect(await later).toBe(true);
  });
});

describe('TokenBucket, at a high rate on a clock of whole milliseconds', () => {
  it('lets every slot that fell due within a millisecond through at once: the rate holds', async () => {
    // Timers fire at the first whole millisecond at or after their time, at least 1 ms on.
    let t = 0;
    let timers: { at: number; wake: () => void }[] = [];
    const sleep = (ms: number) =>
      new Promise<void>((wake) => timers.push({ at: Math.max(Math.ceil(t + ms), Math.floor(t) + 1), wake }));
    const bucket = new TokenBucket({ rate: 10_000, headroom: 0.03, now: () => t, sleep });
    const granted: number[] = [];
    const signal = new AbortController().signal;
    const all = Promise.all(Array.from({ length: 5000 }, () => bucket.take(signal).then(() => granted.push(t))));
    while (granted.length < 5000) {
      for (let i = 0; i < 3; i++) await new Promise((r) => setImmediate(r));
      const next = timers.sort((a, b) => a.at - b.at)[0];
      if (next === undefined) continue;
      t = next.at;
      const due = timers.filter((x) => x.at <= t);
      timers = timers.filter((x) => x.at > t);
      for (const x of due) x.wake();
    }
    await all;
    const perSecond = ((granted.length - 1) * 1000) / (granted.at(-1)! - granted[0]!);
    expect(perSecond).toBeGreaterThan(9000);
    expect(perSecond).toBeLessThanOrEqual(10_000);
  });
});

describe('TokenBucket, a sleep that fails', () => {
  it('fails the callers waiting on it, as it did before the loop, instead of leaving them waiting', async () => {
    const bucket = new TokenBucket({
      rate: 10,
      now: () => 0,
      sleep: async () => {
        throw new Error('no timers here');
      },
    });
    const signal = new AbortController().signal;
    expect(await bucket.take(signal)).toBe(true);
    await expect(bucket.take(signal)).rejects.toThrow('no timers here');
  });
});
