import { describe, expect, it } from 'vitest';
import { DEFAULT_RETRY_POLICY, backoffDelay, decide, givenUpAs, throttleFallbackDelay, type AttemptFailure, type UnsafeRetries } from '../../src/transport/retry-policy.js';

const status = (s: number): AttemptFailure => ({ type: 'status', status: s });
const before: AttemptFailure = { type: 'network', kind: 'before_sent' };
const lost: AttemptFailure = { type: 'network', kind: 'lost_answer' };

describe('decide', () => {
  it.each<[string, AttemptFailure, boolean, UnsafeRetries, string]>([
    ['400', status(400), false, 'always', 'fail'],
    ['404', status(404), true, 'safe', 'fail'],
    ['403', status(403), true, 'safe', 'fail'],
    ['501 is not transient', status(501), true, 'safe', 'fail'],
    ['500, safe, non-idempotent', status(500), false, 'safe', 'retry'],
    ['503, never, idempotent', status(503), true, 'never', 'retry'],
    ['502, never, non-idempotent', status(502), false, 'never', 'unknown'],
    ['504, always, non-idempotent', status(504), false, 'always', 'retry'],
    ['no connection, never, non-idempotent', before, false, 'never', 'retry'],
    ['no connection, safe, non-idempotent', before, false, 'safe', 'retry'],
    ['lost answer, safe, idempotent', lost, true, 'safe', 'retry'],
    ['lost answer, safe, non-idempotent', lost, false, 'safe', 'unknown'],
    ['lost answer, never, non-idempotent', lost, false, 'never', 'unknown'],
    ['lost answer, never, idempotent', lost, true, 'never', 'retry'],
    ['lost answer, always, non-idempotent', lost, false, 'always', 'retry'],
  ])('%s → %s', (_name, failure, idempotent, mode, expected) => {
    expect(decide(failure, idempotent, mode, DEFAULT_RETRY_POLICY)).toBe(expected);
  });

  it('gives up a lost answer as unknown, anything else as failed', () => {
    expect(givenUpAs(lost)).toBe('unknown');
    expect(givenUpAs(before)).toBe('failed');
    expect(givenUpAs(status(503))).toBe('failed');
  });
});

describe('backoffDelay: full jitter, base 500 ms, cap 30 s', () => {
  it.each([
    [1, 1, 500], [2, 1, 1000], [3, 1, 2000], [7, 1, 30_000], [20, 1, 30_000], [3, 0.5, 1000], [3, 0, 0],
  ])('retry %d with random() = %d → %d ms', (retry, r, ms) => {
    expect(backoffDelay(retry, DEFAULT_RETRY_POLICY, () => r)).toBe(ms);
  });
});

describe('throttleFallbackDelay', () => {
  it.each([[1, 1000], [2, 2000], [3, 4000], [10, 30_000]])('429 number %d without a wait → %d ms', (n, ms) => {
    expect(throttleFallbackDelay(n, DEFAULT_RETRY_POLICY)).toBe(ms);
  });
});
