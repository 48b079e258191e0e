import { describe, expect, it } from 'vitest';
import { RESOURCES, type Operation, type ResourceName } from '../../src/config/mapping-schema.js';
import { resourceDef, STAGE_ORDER, type StageName } from '../../src/resources/index.js';

describe('resourceDef', () => {
  it.each<[ResourceName, StageName]>([
    ['product', 'products'],
    ['user', 'contacts'],
    ['deal', 'deals'],
    ['event', 'events'],
    ['product-event', 'events'],
    ['webpush-campaign', 'webpush'],
  ])('%s runs in the %s stage', (name, stage) => {
    const def = resourceDef(name);
    expect(def.name).toBe(name);
    expect(def.stage).toBe(stage);
    expect(STAGE_ORDER).toContain(stage);
  });

  it('knows every resource of the mapping schema', () => {
    for (const name of RESOURCES) expect(resourceDef(name).name).toBe(name);
  });

  it('throws on a name outside the schema (a bug, not data)', () => {
    expect(() => resourceDef('company' as ResourceName)).toThrow('unknown resource "company"');
  });
});

describe('idempotency: whether a request is safe to resend', () => {
  it.each<[ResourceName, Operation | undefined, boolean]>([
    ['user', undefined, true],
    ['deal', 'update_or_create', true],
    ['deal', 'update', true],
    ['webpush-campaign', undefined, true],
    ['deal', 'create', false],
    ['product', undefined, false],
    ['event', undefined, false],
    ['product-event', undefined, false],
  ])('%s %s → %s', (name, operation, idempotent) => {
    expect(resourceDef(name).idempotent(operation)).toBe(idempotent);
  });
});

describe('a valid payload of each resource becomes its request', () => {
  it.each<[ResourceName, Operation | undefined, Record<string, unknown>, string, string]>([
    ['product', undefined, { custom_id: 'A' }, 'POST', 'products/'],
    ['user', undefined, { custom_id: 'C-1' }, 'POST', 'users/update_or_create/'],
    ['deal', 'create', { name: 'x' }, 'POST', 'deals/'],
    ['deal', 'update', { id: 4 }, 'PATCH', 'deals/4/'],
    ['deal', 'update_or_create', { custom_id: 'D', name: 'x' }, 'POST', 'deals/update_or_create/'],
    ['event', undefined, { user_id: 1, name: 'x' }, 'POST', 'events/'],
    ['event', undefined, { user_custom_id: 'C 1?', name: 'x' }, 'POST', 'users-by-id/C%201%3F/events/'],
    [
      'product-event',
      undefined,
      { custom_id: 'A', user_id: 1, data: {}, event_type: 'view', timestamp: 1 },
      'POST',
      'products-by-id/A/product_event/',
    ],
    [
      'product-event',
      undefined,
      { custom_id: 'A/B', user_id: 1, data: {}, event_type: 'view', timestamp: 1 },
      'POST',
      'product-event-creation/A/B/',
    ],
    ['webpush-campaign', undefined, { id: 2, name: 'x' }, 'PATCH', 'webpush-campaign/2/'],
  ])('%s %s %j → %s %s', (name, operation, payload, method, path) => {
    const def = resourceDef(name);
    expect(def.validate(payload, operation)).toEqual([]);
    const call = def.toRequest(payload, operation, {});
    expect([call.method, call.path]).toEqual([method, path]);
    // docs/api-contract.md R-BASE-1, R-BASE-2: relative to the base URL, ending with a slash.
    expect(call.path.startsWith('/')).toBe(false);
    expect(call.path.endsWith('/')).toBe(true);
  });
});
