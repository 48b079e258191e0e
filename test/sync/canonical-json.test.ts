import fc from 'fast-check';
import { LosslessNumber } from 'lossless-json';
import { describe, expect, it } from 'vitest';
import { canonicalJson } from '../../src/sync/canonical-json.js';
import { identityHash, requestHash } from '../../src/sync/request-hash.js';

describe('canonicalJson', () => {
  it.each([
    [{ b: 1, a: 2 }, '{"a":2,"b":1}'],
    [{ z: { y: 1, x: [3, { d: 1, c: 2 }] } }, '{"z":{"x":[3,{"c":2,"d":1}],"y":1}}'],
    [{ a: undefined, b: null }, '{"b":null}'],
    [[undefined, NaN, Infinity], '[null,null,null]'],
    [
      { n: 12.5, big: 12345678901234567890n, exact: new LosslessNumber('12345678901234567891') },
      '{"big":12345678901234567890,"exact":12345678901234567891,"n":12.5}',
    ],
    [{ s: 'é"\n' }, '{"s":"é\\"\\n"}'],
    [{ '\u00e9': 1, e: 2, E: 3 }, '{"E":3,"e":2,"é":1}'],
  ] as [unknown, string][])('case %#: %s', (value, text) => {
    expect(canonicalJson(value)).toBe(text);
  });

  it('reads back as the value JSON.stringify sends, for any JSON value', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (v) => {
        expect(JSON.parse(canonicalJson(v))).toEqual(JSON.parse(JSON.stringify(v)));
      }),
    );
  });
});

describe('requestHash', () => {
  const call = {
    method: 'POST',
    path: 'users/update_or_create/',
    body: { custom_id: 'C-1', email: 'a@example.com', data: { plan: 'pro', seats: 3 } },
  };

  it('does not change with the key order of the body', () => {
    const reordered = {
      method: 'POST',
      path: 'users/update_or_create/',
      body: { data: { seats: 3, plan: 'pro' }, email: 'a@example.com', custom_id: 'C-1' },
    };
    expect(requestHash(reordered)).toBe(requestHash(call));
  });

  it.each([
    ['a value', { ...call, body: { ...call.body, email: 'b@example.com' } }],
    ['a nested value', { ...call, body: { ...call.body, data: { plan: 'pro', seats: 4 } } }],
    ['a number into its text', { ...call, body: { ...call.body, data: { plan: 'pro', seats: '3' } } }],
    ['the path', { ...call, path: 'users-by-id/C-1/' }],
    ['the method', { ...call, method: 'PUT' }],
  ])('changes with %s', (_, other) => {
    expect(requestHash(other)).not.toBe(requestHash(call));
  });

  it('tells exact numbers apart that a float would merge', () => {
    const a = { method: 'POST', path: 'events/', body: { data: { n: new LosslessNumber('9007199254740993') } } };
    const b = { method: 'POST', path: 'events/', body: { data: { n: new LosslessNumber('9007199254740992') } } };
    expect(requestHash(a)).not.toBe(requestHash(b));
  });

  it('is the same for any key order (property)', () => {
    fc.assert(
      fc.property(fc.dictionary(fc.string(), fc.jsonValue()), (body) => {
        const reversed = Object.fromEntries(Object.entries(body).reverse());
        expect(requestHash({ method: 'POST', path: 'x/', body: reversed })).toBe(
          requestHash({ method: 'POST', path: 'x/', body }),
        );
      }),
    );
  });
});

describe('identityHash', () => {
  it('depends on the cells and their order', () => {
    expect(identityHash('event', ['E-1', '2026-01-01'])).toBe(identityHash('event', ['E-1', '2026-01-01']));
    expect(identityHash('event', ['E-1', '2026-01-01'])).not.toBe(identityHash('event', ['2026-01-01', 'E-1']));
    // No separator ambiguity: ["a,b"] is not ["a", "b"].
    expect(identityHash('event', ['a,b'])).not.toBe(identityHash('event', ['a', 'b']));
  });

  it('depends on what kind of occurrence the cells identify', () => {
    expect(identityHash('event Purchase', ['O-1'])).not.toBe(identityHash('event Refund', ['O-1']));
    expect(identityHash('event Purchase', ['O-1'])).not.toBe(identityHash('event', ['Purchase', 'O-1']));
  });
});
