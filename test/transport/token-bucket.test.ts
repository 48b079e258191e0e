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
