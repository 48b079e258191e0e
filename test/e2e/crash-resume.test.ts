import { describe, expect, it } from 'vitest';
import { crashRound } from '../../scripts/crash-harness.js';

/**
 * The short version of `npm run test:crash`: a real importer process is killed with
 * SIGKILL at a seeded random moment, then resumed. Seeds make each round reproducible.
 */
describe('kill -9 and resume', () => {
  it.each([101, 202, 303])(
    'events (seed %d): no row applied twice, none lost, unknown rows within the concurrency',
    async (seed) => {
      const r = await crashRound({ kind: 'events', seed, rows: 300, latencyMs: 20, concurrency: 8 });
      expect(r.killedAfter).toBeGreaterThan(0);
      expect(r.duplicates).toBe(0);
      expect(r.lost).toBe(0);
      expect(r.unknown).toBeLessThanOrEqual(8);
      expect((r.statuses.ok ?? 0) + r.unknown).toBe(300);
    },
    120_000,
  );

  it('deals update_or_create (seed 404): the final state equals the CSV and no row is unknown', async () => {
    const r = await crashRound({ kind: 'deals', seed: 404, rows: 300, latencyMs: 20, concurrency: 8 });
    expect(r.stateMismatches).toBe(0);
    expect(r.unknown).toBe(0);
    expect(r.lost).toBe(0);
    expect(r.statuses).toEqual({ ok: 300 });
  }, 120_000);
});
