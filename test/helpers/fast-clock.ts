/**
 * Fake time for the pauses between bulk import status polls, in tests that run the sandbox for
 * real: the clock jumps by each pause, and each pause yields to the sandbox's import for a moment.
 */
export function fastClock() {
  let t = 0;
  return {
    now: () => t,
    sleep: async (ms: number) => {
      t += ms;
      await new Promise((r) => setTimeout(r, 2));
    },
  };
}
