import { describe, expect, it } from 'vitest';
import { Semaphore } from '../../src/pipeline/semaphore.js';

describe('Semaphore', () => {
  it('holds the reader while the cap is in use, and hands slots over in order', async () => {
    const s = new Semaphore(2);
    await s.acquire();
    await s.acquire();
    const order: number[] = [];
    const third = s.acquire().then(() => order.push(3));
    const fourth = s.acquire().then(() => order.push(4));
    await Promise.resolve();
    expect(order).toEqual([]);
    expect(s.inUse).toBe(2);
    s.release();
    await third;
    expect(order).toEqual([3]);
    s.release();
    await fourth;
    expect(order).toEqual([3, 4]);
  });

  it('idle() waits for every holder', async () => {
    const s = new Semaphore(3);
    await s.acquire();
    let idle = false;
    const done = s.idle().then(() => (idle = true));
    await new Promise((r) => setImmediate(r));
    expect(idle).toBe(false);
    s.release();
    await done;
    expect(idle).toBe(true);
    expect(s.inUse).toBe(0);
  });

  it.each([0, -1, 1.5])('refuses a capacity of %d', (n) => {
    expect(() => new Semaphore(n)).toThrow(RangeError);
  });
});
