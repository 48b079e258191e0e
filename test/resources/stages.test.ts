import { describe, expect, it } from 'vitest';
import { STAGE_ORDER } from '../../src/resources/stages.js';

describe('STAGE_ORDER', () => {
  it('follows R-ORDER-1 … R-ORDER-4: products, contacts, deals, events, then webpush', () => {
    expect(STAGE_ORDER).toEqual(['products', 'contacts', 'deals', 'events', 'webpush']);
    expect(Object.isFrozen(STAGE_ORDER)).toBe(true);
  });
});
