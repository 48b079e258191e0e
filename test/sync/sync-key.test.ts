import { describe, expect, it } from 'vitest';
import type { ResolvedMapping } from '../../src/config/mapping-schema.js';
import { createSyncKeyer, entityKeyOf } from '../../src/sync/sync-key.js';
import { identityHash, requestHash } from '../../src/sync/request-hash.js';

describe('entityKeyOf', () => {
  it.each([
    ['user', undefined, { custom_id: 'C-1' }, 'custom_id=C-1'],
    ['product', undefined, { custom_id: 'P-1' }, 'custom_id=P-1'],
    ['deal', 'update_or_create', { custom_id: 'D-1', name: 'x' }, 'custom_id=D-1'],
    ['deal', 'update', { id: 42 }, 'id=42'],
    ['deal', 'create', { custom_id: 'D-2', name: 'x' }, 'custom_id=D-2'],
    ['deal', 'create', { name: 'x' }, undefined],
    ['webpush-campaign', undefined, { id: 7 }, 'id=7'],
    ['event', undefined, { user_custom_id: 'C-1', name: 'x' }, undefined],
    ['product-event', undefined, { custom_id: 'P-1' }, undefined],
  ] as const)('%s %s %j → %s', (resource, operation, payload, key) => {
    expect(entityKeyOf(resource, operation, payload)).toBe(key);
  });
});

describe('createSyncKeyer', () => {
  const mapping = (m: Partial<ResolvedMapping>): ResolvedMapping => ({
    mappingFile: '/m/events.yaml',
    resource: 'event',
    operation: undefined,
    source: { path: '/d/events.csv', delimiter: ',', encoding: 'utf-8' },
    key: ['event_id'],
    fields: [],
    ...m,
  });
  const call = { method: 'POST' as const, path: 'users-by-id/C-1/events/', body: { name: 'Signed Up', timestamp: 1 } };

  it('keys an event by its request unless the mapping names identity columns', () => {
    const row = { payload: {}, call, fields: ['E-1', 'C-1', '2026-01-01'] };
    expect(createSyncKeyer(mapping({}), ['event_id', 'customer', 'at'])(row)).toEqual({
      resource: 'event',
      kind: 'event',
      key: requestHash(call),
      hash: requestHash(call),
    });
    const byId = createSyncKeyer(mapping({ identity: ['event_id'] }), ['event_id', 'customer', 'at'])(row);
    expect(byId).toEqual({ resource: 'event', kind: 'event', key: identityHash(['E-1']), hash: requestHash(call) });
  });

  it('keys a contact by custom_id', () => {
    const c = { method: 'POST' as const, path: 'users/update_or_create/', body: { custom_id: 'C-1' } };
    expect(
      createSyncKeyer(mapping({ resource: 'user' }), ['id'])({ payload: { custom_id: 'C-1' }, call: c, fields: [] }),
    ).toEqual({
      resource: 'user',
      kind: 'entity',
      key: 'custom_id=C-1',
      hash: requestHash(c),
    });
  });

  it('refuses identity columns the file does not have, before row 1', () => {
    expect(() => createSyncKeyer(mapping({ identity: ['event_id', 'occurred'] }), ['event_id', 'at'])).toThrow(
      '/m/events.yaml: identity reads column "occurred", but /d/events.csv has no such column. Its columns are: "event_id", "at"',
    );
  });
});
