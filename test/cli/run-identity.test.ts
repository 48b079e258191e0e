import { describe, expect, it } from 'vitest';
import { payloadOptionsToCompare, type PayloadOptions } from '../../src/cli/run-identity.js';
import { identityChanges, type RunIdentity } from '../../src/ledger/index.js';

const now: PayloadOptions = {
  input: null,
  limit: null,
  'deal-update-method': 'PATCH',
  bulk: 'always',
  'bulk-min-rows': 1000,
  'bulk-chunk-rows': 500,
};

const recorded = (options: RunIdentity['options']): RunIdentity => ({
  job: { path: '/p/job.yaml', sha256: 'a'.repeat(64) },
  mappings: [],
  inputs: [],
  options,
});

/** The sentences a resume would refuse with, for a run that recorded `options`, resumed with `now`. */
const refusals = (options: RunIdentity['options']) => {
  const stored = recorded(options);
  return identityChanges(stored, recorded({ ...payloadOptionsToCompare(now, stored) }), '/p');
};

describe('payloadOptionsToCompare: the bulk options in a resume', () => {
  it('a run that recorded its bulk options refuses a resume with other ones, naming each', () => {
    expect(
      refusals({
        input: null,
        limit: null,
        'deal-update-method': 'PATCH',
        bulk: 'auto',
        'bulk-min-rows': 1000,
        'bulk-chunk-rows': 10000,
      }),
    ).toEqual(['option bulk was auto, now always', 'option bulk-chunk-rows was 10000, now 500']);
  });

  it('the same bulk options: nothing to refuse', () => {
    expect(refusals({ ...now })).toEqual([]);
  });

  it('a run started before the bulk options were recorded stays resumable, compared on the other options', () => {
    expect(refusals({ input: null, limit: null, 'deal-update-method': 'PATCH' })).toEqual([]);
    expect(refusals({ input: null, limit: 3, 'deal-update-method': 'PATCH' })).toEqual([
      'option limit was 3, now not set',
    ]);
  });
});
