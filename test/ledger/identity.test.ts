import { describe, expect, it } from 'vitest';
import { identityChanges, type RunIdentity } from '../../src/ledger/index.js';

const h = (c: string) => c.repeat(64);
const base: RunIdentity = {
  job: { path: '/p/job.yaml', sha256: h('a') },
  mappings: [
    { path: '/p/mappings/events.yaml', sha256: h('b') },
    { path: '/p/mappings/deals.yaml', sha256: h('c') },
  ],
  inputs: [
    { path: '/p/samples/events.csv', size: 10_234, sha256: h('d') },
    { path: '/p/samples/deals.csv', size: 512, sha256: h('e') },
  ],
  options: { 'deal-update-method': 'PATCH', limit: null, input: null },
};
const with_ = (patch: Partial<RunIdentity>): RunIdentity => ({ ...base, ...patch });

describe('identityChanges', () => {
  it('finds nothing when the run is the same (options in any key order)', () => {
    expect(
      identityChanges(base, with_({ options: { input: null, limit: null, 'deal-update-method': 'PATCH' } }), '/p'),
    ).toEqual([]);
  });

  it.each<[string, RunIdentity, string[]]>([
    [
      'an input file grew',
      with_({ inputs: [{ path: '/p/samples/events.csv', size: 10_301, sha256: h('f') }, base.inputs[1]!] }),
      ['samples/events.csv changed since the run started (size 10,234 → 10,301 bytes; sha256 differs)'],
    ],
    [
      'an input file was edited in place',
      with_({ inputs: [base.inputs[0]!, { path: '/p/samples/deals.csv', size: 512, sha256: h('f') }] }),
      ['samples/deals.csv changed since the run started (size 512 bytes, unchanged; sha256 differs)'],
    ],
    [
      'a mapping changed',
      with_({ mappings: [{ path: '/p/mappings/events.yaml', sha256: h('f') }, base.mappings[1]!] }),
      ['mapping mappings/events.yaml changed'],
    ],
    ['the job changed', with_({ job: { path: '/p/job.yaml', sha256: h('f') } }), ['job job.yaml changed']],
    [
      'another job',
      with_({ job: { path: '/p/other.yaml', sha256: h('a') } }),
      ['job file was job.yaml, now other.yaml'],
    ],
    [
      'a payload option changed',
      with_({ options: { ...base.options, 'deal-update-method': 'PUT' } }),
      ['option deal-update-method was PATCH, now PUT'],
    ],
    ['an option was set', with_({ options: { ...base.options, limit: 100 } }), ['option limit was not set, now 100']],
    ['an option is new', with_({ options: { ...base.options, dry: false } }), ['option dry was not set, now false']],
    [
      'a mapping and its input were added',
      with_({
        mappings: [...base.mappings, { path: '/p/mappings/products.yaml', sha256: h('f') }],
        inputs: [...base.inputs, { path: '/p/samples/products.csv', size: 1, sha256: h('f') }],
      }),
      ['mapping mappings/products.yaml was added', 'input samples/products.csv was added'],
    ],
    [
      'a mapping and its input were removed',
      with_({ mappings: [base.mappings[0]!], inputs: [base.inputs[0]!] }),
      ['mapping mappings/deals.yaml was removed', 'input samples/deals.csv was removed'],
    ],
    [
      'the inputs were reordered (rows are keyed by mapping position)',
      with_({ inputs: [base.inputs[1]!, base.inputs[0]!] }),
      ['the order of the input files changed'],
    ],
    [
      'a file outside the working folder',
      with_({ inputs: [{ path: '/data/events.csv', size: 3, sha256: h('f') }, base.inputs[1]!] }),
      ['input /data/events.csv was added', 'input samples/events.csv was removed'],
    ],
    [
      'several things at once, all reported',
      with_({
        job: { path: '/p/job.yaml', sha256: h('f') },
        inputs: [{ path: '/p/samples/events.csv', size: 9, sha256: h('f') }, base.inputs[1]!],
        options: { ...base.options, 'deal-update-method': 'PUT' },
      }),
      [
        'job job.yaml changed',
        'samples/events.csv changed since the run started (size 10,234 → 9 bytes; sha256 differs)',
        'option deal-update-method was PATCH, now PUT',
      ],
    ],
  ])('says what changed: %s', (_name, current, expected) => {
    expect(identityChanges(base, current, '/p')).toEqual(expected);
  });
});
