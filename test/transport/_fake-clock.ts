/**
 * Virtual time for the transport: `sleep` never waits. Each sleep resolves (on a microtask) by
 * moving the clock to the moment it was due, never backwards; concurrent sleepers registered at
 * the same time therefore wake in order and see the time they asked for.
 */
export function fakeClock(start = 0) {
  let t = start;
  const sleeps: number[] = [];
  return {
    now: () => t,
    sleeps,
    sleep: async (ms: number, _signal?: AbortSignal): Promise<void> => {
      sleeps.push(ms);
      const due = t + ms;
      await Promise.resolve();
      t = Math.max(t, due);
    },
    advance: (ms: number) => {
      t += ms;
    },
  };
}

/**
 * A scheduler clock: sleepers wait until `runUntilIdle` (or `advance`) moves time past their
 * due time, and an abort wakes them at once. For tests that interleave timers and actions.
 */
export function manualClock() {
  let t = 0;
  let timers: { at: number; wake: () => void }[] = [];
  const settle = async () => {
    for (let i = 0; i < 10; i++) await new Promise((r) => setImmediate(r));
  };
  return {
    now: () => t,
    sleep: (ms: number, signal?: AbortSignal): Promise<void> =>
      new Promise<void>((resolve) => {
        if (signal?.aborted) return resolve();
        const timer = { at: t + ms, wake: resolve };
        timers.push(timer);
        signal?.addEventListener(
          'abort',
          () => {
            timers = timers.filter((x) => x !== timer);
            resolve();
          },
          { once: true },
        );
      }),
    /** Moves time forward by `ms`, waking every sleeper due by then, in time order. */
    async advance(ms: number): Promise<void> {
      const end = t + ms;
      await settle();
      for (;;) {
        timers.sort((a, b) => a.at - b.at);
        const next = timers[0];
        if (next === undefined || next.at > end) break;
        timers.shift();
        t = Math.max(t, next.at);
        next.wake();
        await settle();
      }
      t = end;
    },
    pending: () => timers.length,
  };
}

/** Lets I/O (nock's answers) run until `condition` holds; no timer is involved. */
export async function until(condition: () => boolean, rounds = 10_000): Promise<void> {
  for (let i = 0; i < rounds; i++) {
    if (condition()) return;
    await new Promise((r) => setImmediate(r));
  }
  throw new Error('until: the condition never held');
}
