import { describe, expect, it } from 'vitest';
import { RateWindow, throttledMessage } from '../../src/sandbox/rate-window.js';

/** Sends requests at the given times (ms) and answers what each got: 'ok' or the retry-after seconds. */
function run(limit: number, times: readonly number[]): (string | number)[] {
  const window = new RateWindow(limit);
  return times.map((t) => {
    const r = window.take('key', t);
    return r.allowed ? 'ok' : r.retryAfter;
  });
}

describe('RateWindow (R-RATE-1: a sliding one-second window of request times)', () => {
  it.each([
    {
      case: '10 at once: the 11th is refused',
      limit: 10,
      times: Array(11).fill(0),
      want: [...Array(10).fill('ok'), 1],
    },
    {
      case: 'a time exactly one second old no longer counts',
      limit: 2,
      times: [0, 0, 999, 1000],
      want: ['ok', 'ok', 1, 'ok'],
    },
    {
      case: 'the window slides: it is not a fixed second',
      limit: 2,
      times: [0, 600, 900, 1000, 1500, 1600],
      want: ['ok', 'ok', 1, 'ok', 1, 'ok'],
    },
    {
      case: 'refused requests are not counted',
      limit: 1,
      times: [0, 100, 200, 300, 999, 1000],
      want: ['ok', 1, 1, 1, 1, 'ok'],
    },
    { case: 'retry-after is at least 1 even 1 ms before the slot frees', limit: 1, times: [0, 999], want: ['ok', 1] },
    {
      case: 'a steady 10/s is never refused',
      limit: 10,
      times: Array.from({ length: 50 }, (_, i) => i * 100),
      want: Array(50).fill('ok'),
    },
  ])('$case', ({ limit, times, want }) => {
    expect(run(limit, times)).toEqual(want);
  });

  it('limit 0 turns the limit off (--rate 0)', () => {
    expect(run(0, Array(1000).fill(5)).every((r) => r === 'ok')).toBe(true);
  });

  it('keeps one window per key', () => {
    const window = new RateWindow(1);
    expect(window.take('a', 0).allowed).toBe(true);
    expect(window.take('b', 0).allowed).toBe(true);
    expect(window.take('a', 10).allowed).toBe(false);
  });

  it('takes a new limit while running, and reset() forgets every time', () => {
    const window = new RateWindow(1);
    window.take('k', 0);
    expect(window.take('k', 1).allowed).toBe(false);
    window.setRate(3);
    expect(window.rate).toBe(3);
    expect(window.take('k', 2).allowed).toBe(true);
    window.setRate(1);
    expect(window.take('k', 3)).toEqual({ allowed: false, retryAfter: 1 });
    window.reset();
    expect(window.take('k', 4).allowed).toBe(true);
  });

  it('with a longer window, retry-after counts whole seconds up', () => {
    const window = new RateWindow(1, 2500);
    window.take('k', 0);
    expect(window.take('k', 100)).toEqual({ allowed: false, retryAfter: 3 });
    expect(window.take('k', 1500)).toEqual({ allowed: false, retryAfter: 1 });
  });

  it('survives a long run without keeping every time', () => {
    const window = new RateWindow(5);
    for (let t = 0; t < 100_000; t += 10) window.take('k', t);
    expect(window.take('k', 100_000).allowed).toBe(true);
  });

  it.each([-1, 1.5, Number.NaN])('refuses the limit %s', (limit) => {
    expect(() => new RateWindow(limit)).toThrow(RangeError);
  });
});

describe('throttledMessage (R-RATE-2 wording)', () => {
  it.each([
    [1, 'Request was throttled. Expected available in 1 second.'],
    [2, 'Request was throttled. Expected available in 2 seconds.'],
    [10, 'Request was throttled. Expected available in 10 seconds.'],
  ])('%i → %s', (n, text) => {
    expect(throttledMessage(n)).toBe(text);
  });
});
