import { describe, expect, it } from 'vitest';
import { applyFaultPatch, DEFAULT_FAULTS } from '../../src/sandbox/options.js';

describe('applyFaultPatch (options, CLI flags and PATCH /__sandbox/faults)', () => {
  it('applies the keys given and keeps the others', () => {
    expect(applyFaultPatch(DEFAULT_FAULTS, { failRate: 0.05, latencyMs: 150 })).toEqual({
      settings: { rate: 10, latencyMs: 150, jitterMs: 0, failRate: 0.05, dropRate: 0 },
    });
    expect(applyFaultPatch(DEFAULT_FAULTS, {})).toEqual({ settings: DEFAULT_FAULTS });
  });

  it.each([
    [{ failRate: 1.5 }, ['failRate: Too big: expected number to be <=1']],
    [{ rate: -1 }, ['rate: Too small: expected number to be >=0']],
    [{ rate: 2.5 }, ['rate: Invalid input: expected int, received number']],
    [{ latencyMs: '150' }, ['latencyMs: Invalid input: expected number, received string']],
    [{ speed: 1 }, ['(body): Unrecognized key: "speed"']],
    [{ failRate: 0.6, dropRate: 0.5 }, ['failRate + dropRate: must be at most 1 (got 1.1)']],
    [[], ['(body): Invalid input: expected object, received array']],
  ])('refuses %j', (patch, problems) => {
    expect(applyFaultPatch(DEFAULT_FAULTS, patch)).toEqual({ problems });
  });
});
