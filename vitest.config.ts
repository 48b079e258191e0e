import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // Property tests on one seed: deterministic runs (test/helpers/fixed-seed.ts).
    setupFiles: ['test/helpers/fixed-seed.ts'],
    // vitest's default for `run` is one worker fewer than the cores: one worker on a 2-core CI
    // machine, which then runs 144 files one after the other while the second core idles. Many
    // files also spend their time waiting (sandbox latency, child processes), so one per core.
    maxWorkers: availableParallelism(),
    // Forks, not threads: test/mapping/date-values.test.ts runs under other time zones through
    // process.env.TZ, which a worker thread shares with every other file running beside it.
    pool: 'forks',
    // End-to-end tests start a real sandbox on loopback; give them room on a 2-core CI machine.
    testTimeout: 30_000,
    hookTimeout: 30_000,
  },
});
