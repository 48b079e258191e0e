import { describe, expect, it } from 'vitest';
import { DEFAULT_RETRY_POLICY, backoffDelay, throttleFallbackDelay } from '../../src/transport/retry-policy.js';

describe('backoffDelay: full jitter, base 500 ms, cap 30 s', () => {
  it.each([
    [1, 1, 500],
    [2, 1, 1000],
    [3, 1, 2000],
    [7, 1, 30_000],
    [20, 1, 30_000],
    [3, 0.5, 1000],
    [3, 0, 0],
  ])('retry %d with random() = %d → %d ms', (retry, r, ms) => {
    expect(backoffDelay(retry, DEFAULT_RETRY_POLICY, () => r)).toBe(ms);
  });
});

describe('throttleFallbackDelay', () => {
  it.each([
    [1, 1000],
    [2, 2000],
    [3, 4000],
    [10, 30_000],
  ])('429 number %d without a wait → %d ms', (n, ms) => {
    expect(throttleFallbackDelay(n, DEFAULT_RETRY_POLICY)).toBe(ms);
  });
});
