import { describe, expect, it } from 'vitest';
import { EVENT_TYPES, isEventType, nearestEventType } from '../../src/resources/event-types.js';

describe('EVENT_TYPES', () => {
  it('is the closed list of R-PEVT-4, 16 values', () => {
    expect(EVENT_TYPES).toHaveLength(16);
    expect(EVENT_TYPES.every((t) => t === t.toLowerCase() && !/[_-]|\s{2}/.test(t))).toBe(true);
  });

  it.each([
    ['add to cart', true],
    ['order', true],
    ['Order', false],
    ['add_to_cart', false],
    ['', false],
  ])('isEventType(%j) is %s', (value, known) => {
    expect(isEventType(value)).toBe(known);
  });
});

describe('nearestEventType', () => {
  it.each([
    ['add_to_cart', 'add to cart'],
    ['Add-To-Cart', 'add to cart'],
    ['  PROMO   click ', 'promo click'],
    ['checkout_option', 'checkout option'],
    ['purchased', 'purchase'],
    ['refunds', 'refund'],
    ['addtocart', 'add to cart'],
    ['add to observations', 'add to observation'],
    ['shipped', undefined],
    ['buy', undefined],
    ['', undefined],
    ['___', undefined],
  ])('%j → %j', (value, near) => {
    expect(nearestEventType(value)).toBe(near);
  });
});
