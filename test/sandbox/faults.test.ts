import { describe, expect, it } from 'vitest';
import { type Fault, FaultDice, mulberry32, runUnderFault } from '../../src/sandbox/faults.js';

describe('mulberry32', () => {
  it('gives the same sequence for the same seed, another for another seed', () => {
    const a = mulberry32(42);
    const b = mulberry32(42);
    const c = mulberry32(43);
    const seqA = Array.from({ length: 5 }, a);
    expect(Array.from({ length: 5 }, b)).toEqual(seqA);
    expect(Array.from({ length: 5 }, c)).not.toEqual(seqA);
  });

  it('stays in [0, 1) and is roughly uniform', () => {
    const r = mulberry32(7);
    const buckets = Array(10).fill(0);
    let outside = 0;
    for (let i = 0; i < 100_000; i++) {
      const x = r();
      if (!(x >= 0 && x < 1)) outside++;
      buckets[Math.floor(x * 10)]++;
    }
    expect(outside).toBe(0);
    for (const n of buckets) expect(Math.abs(n - 10_000)).toBeLessThan(500);
  });
});

describe('FaultDice', () => {
  it('delays by latency ± jitter, never below 0', () => {
    const dice = new FaultDice(1);
    const delays = Array.from({ length: 2000 }, () => dice.delay({ latencyMs: 150, jitterMs: 50 }));
    expect(Math.min(...delays)).toBeGreaterThanOrEqual(100);
    expect(Math.max(...delays)).toBeLessThanOrEqual(200);
    expect(new Set(delays).size).toBeGreaterThan(50);
    const low = Array.from({ length: 200 }, () => dice.delay({ latencyMs: 10, jitterMs: 50 }));
    expect(Math.min(...low)).toBe(0);
  });

  it('no latency, no delay', () => {
    expect(new FaultDice(1).delay({ latencyMs: 0, jitterMs: 0 })).toBe(0);
  });

  it('splits --fail-rate into half before and half after the write, and --drop-rate apart', () => {
    const dice = new FaultDice(42);
    const counts = { 'fail-before': 0, 'fail-after': 0, drop: 0, none: 0 };
    for (let i = 0; i < 20_000; i++) counts[dice.fault({ failRate: 0.2, dropRate: 0.1 }) ?? 'none']++;
    expect(counts['fail-before'] / 20_000).toBeCloseTo(0.1, 1);
    expect(counts['fail-after'] / 20_000).toBeCloseTo(0.1, 1);
    expect(counts.drop / 20_000).toBeCloseTo(0.1, 1);
    expect(counts.none / 20_000).toBeCloseTo(0.7, 1);
  });

  it('rates 0 never fault; rate 1 always does', () => {
    const dice = new FaultDice(3);
    for (let i = 0; i < 1000; i++) expect(dice.fault({ failRate: 0, dropRate: 0 })).toBeNull();
    for (let i = 0; i < 1000; i++) expect(dice.fault({ failRate: 0, dropRate: 1 })).toBe('drop');
  });

  it('draws the same number of values whatever the settings, so a change mid-run does not shift later faults', () => {
    const a = new FaultDice(9);
    const b = new FaultDice(9);
    a.fault({ failRate: 0, dropRate: 0 });
    b.fault({ failRate: 1, dropRate: 0 });
    const next = (d: FaultDice) => Array.from({ length: 20 }, () => d.fault({ failRate: 0.5, dropRate: 0.2 }));
    expect(next(a)).toEqual(next(b));
  });
});

describe('runUnderFault', () => {
  const settings = { failRate: 0.5, dropRate: 0.2 };
  it.each<[Fault | null, boolean, boolean]>([
    // fault, does the endpoint run, is the answer a 500
    ['fail-before', false, true],
    ['fail-after', true, true],
    ['drop', true, false],
    [null, true, false],
  ])('%s: the endpoint runs: %s, a 500: %s', (fault, runs, serverError) => {
    let ran = 0;
    const run = runUnderFault({ fault: () => fault }, settings, () => ++ran);
    expect(ran).toBe(runs ? 1 : 0);
    expect(run).toEqual({ serverError, fault, result: runs ? 1 : undefined });
  });
});
