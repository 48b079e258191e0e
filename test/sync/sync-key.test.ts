import { describe, expect, it } from 'vitest';
import type { ResolvedMapping } from '../../src/config/mapping-schema.js';
import { createSyncKeyer, entityKeyOf } from '../../src/sync/sync-key.js';
import { identityHash, legacyIdentityHash, requestHash } from '../../src/sync/request-hash.js';

describe('entityKeyOf', () => {
  it.each([
    ['user', undefined, { custom_id: 'C-1' }, 'custom_id=C-1'],
    ['product', undefined, { custom_id: 'P-1' }, 'custom_id=P-1'],
    ['deal', 'update_or_create', { custom_id: 'D-1', name: 'x' }, 'custom_id=D-1'],
    ['deal', 'update', { id: 42 }, 'id=42'],
    // A create makes a new deal each time it is sent: an occurrence, custom_id or not.
    ['deal', 'create', { custom_id: 'D-2', name: 'x' }, undefined],
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
    const row = { payload: { name: 'Signed Up' }, call, fields: ['E-1', 'C-1', '2026-01-01'] };
    expect(createSyncKeyer(mapping({}), ['event_id', 'customer', 'at'])(row)).toEqual({
      resource: 'event',
      kind: 'event',
      key: requestHash(call),
      hash: requestHash(call),
    });
    const { legacy, ...byId } = createSyncKeyer(mapping({ identity: ['event_id'] }), ['event_id', 'customer', 'at'])(
      row,
    );
    expect(byId).toEqual({
      resource: 'event',
      kind: 'event',
      key: identityHash('event Signed Up', ['E-1']),
      hash: requestHash(call),
    });
    // As a state written before identities took the event's name holds it.
    expect(legacy?.()).toEqual({ kind: 'event', key: legacyIdentityHash(['E-1']) });
  });

  it('reads identity cells without the spaces around them: an export that pads a cell names the same event', () => {
    const keyer = createSyncKeyer(mapping({ identity: ['order'] }), ['order']);
    const plain = keyer({ payload: { name: 'Purchase' }, call, fields: ['O-1'] });
    expect(keyer({ payload: { name: 'Purchase' }, call, fields: [' O-1 '] }).key).toBe(plain.key);
  });

  it('keeps the identities of two events with the same identity cells apart by their names', () => {
    const keyer = createSyncKeyer(mapping({ identity: ['order'] }), ['order']);
    const purchase = keyer({ payload: { name: 'Purchase' }, call, fields: ['O-1'] });
    const refund = keyer({ payload: { name: 'Refund' }, call, fields: ['O-1'] });
    expect(purchase.key).not.toBe(refund.key);
  });

  it('keys a deal create by its custom_id as an occurrence: a changed create is still the same deal', () => {
    const keyer = createSyncKeyer(mapping({ resource: 'deal', operation: 'create' }), ['id', 'amount']);
    const create = (amount: number) => ({
      payload: { custom_id: 'D-1', amount },
      call: { method: 'POST' as const, path: 'deals/', body: { custom_id: 'D-1', amount } },
      fields: ['D-1', String(amount)],
    });
    const first = keyer(create(100));
    expect(first).toMatchObject({ resource: 'deal', kind: 'event', key: identityHash('deal', ['custom_id=D-1']) });
    expect(keyer(create(150)).key).toBe(first.key);
    // Without a custom_id nothing but the request tells two creates apart.
    const bare = {
      payload: { name: 'x' },
      call: { method: 'POST' as const, path: 'deals/', body: { name: 'x' } },
      fields: [],
    };
    expect(keyer(bare)).toMatchObject({ kind: 'event', key: requestHash(bare.call) });
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
