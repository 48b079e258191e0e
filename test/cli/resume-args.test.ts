import { describe, expect, it } from 'vitest';
import { DEFAULTS } from '../../src/defaults.js';
import { withRecordedPayloadOptions } from '../../src/cli/resume-args.js';

const defaults = {
  input: undefined,
  limit: undefined,
  'deal-update-method': DEFAULTS.dealUpdateMethod,
  bulk: DEFAULTS.bulk,
  'bulk-min-rows': DEFAULTS.bulkMinRows,
  'bulk-chunk-rows': DEFAULTS.bulkChunkRows,
} as const;

describe('withRecordedPayloadOptions', () => {
  it('takes the run’s payload options where the command line leaves them out or at their default', () => {
    const recorded = {
      input: 'export-2.csv',
      limit: 3,
      'deal-update-method': 'PUT',
      bulk: 'always',
      'bulk-min-rows': 5,
      'bulk-chunk-rows': 2,
      sync: 'incremental',
    };
    expect(withRecordedPayloadOptions(defaults, recorded)).toEqual({
      input: 'export-2.csv',
      limit: 3,
      'deal-update-method': 'PUT',
      bulk: 'always',
      'bulk-min-rows': 5,
      'bulk-chunk-rows': 2,
    });
  });

  it('keeps what the command line gives (the resume then refuses, naming the change), and a run that recorded none', () => {
    const given = { ...defaults, limit: 4, bulk: 'never' as const };
    expect(withRecordedPayloadOptions(given, { limit: 3, bulk: 'always', input: null })).toEqual(given);
    expect(withRecordedPayloadOptions(defaults, {})).toEqual(defaults);
    // A value of the wrong kind in the record is not taken.
    expect(withRecordedPayloadOptions(defaults, { bulk: 'sometimes', limit: -1 })).toEqual(defaults);
  });
});
