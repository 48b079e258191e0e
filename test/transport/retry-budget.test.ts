import { describe, expect, it } from 'vitest';
import { RetryBudget } from '../../src/transport/retry-budget.js';

describe('RetryBudget', () => {
  it('pays for 100 retries out of 500 tokens at 5 each, then refuses', () => {
    const budget = new RetryBudget();
    let granted = 0;
    while (budget.tryAcquire()) granted++;
    expect(granted).toBe(100);
    expect(budget.available).toBe(0);
  });

  it('earns one token back per success, never above its capacity', () => {
    const budget = new RetryBudget({ capacity: 10, retryCost: 5, successRefund: 1 });
    expect(budget.tryAcquire()).toBe(true);
    expect(budget.tryAcquire()).toBe(true);
    expect(budget.tryAcquire()).toBe(false);
    for (let i = 0; i < 4; i++) budget.onSuccess();
    expect(budget.tryAcquire()).toBe(false);
    budget.onSuccess();
    expect(budget.tryAcquire()).toBe(true);
    for (let i = 0; i < 100; i++) budget.onSuccess();
    expect(budget.available).toBe(10);
  });
});
