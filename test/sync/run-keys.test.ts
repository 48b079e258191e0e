import { afterEach, describe, expect, it } from 'vitest';
import { RunKeys } from '../../src/sync/run-keys.js';
import type { SyncKey } from '../../src/sync/sync-key.js';

const contact = (id: string): SyncKey => ({
  resource: 'user',
  kind: 'entity',
  key: `custom_id=${id}`,
  hash: '0'.repeat(64),
});
const event = (id: string): SyncKey => ({
  resource: 'event',
  kind: 'event',
  key: id.repeat(64).slice(0, 64),
  hash: '0'.repeat(64),
});

let keys: RunKeys;
afterEach(() => keys.close());

describe('RunKeys', () => {
  it('lets the last row of an entity key win, across files of the run', () => {
    keys = new RunKeys();
    keys.noteEntity(contact('C-1'), { source: 0, line: 2 });
    keys.noteEntity(contact('C-2'), { source: 0, line: 3 });
    keys.noteEntity(contact('C-1'), { source: 0, line: 9 });
    keys.noteEntity(contact('C-2'), { source: 1, line: 2 });
    expect(keys.winner(contact('C-1'), { source: 0, line: 2 })).toEqual({ source: 0, line: 9 });
    expect(keys.winner(contact('C-1'), { source: 0, line: 9 })).toBeUndefined();
    expect(keys.winner(contact('C-2'), { source: 0, line: 3 })).toEqual({ source: 1, line: 2 });
    expect(keys.winner(contact('C-3'), { source: 0, line: 4 })).toBeUndefined();
    // The same custom id in another resource is another entity.
    expect(keys.winner({ ...contact('C-1'), resource: 'product' }, { source: 2, line: 2 })).toBeUndefined();
  });

  it('lets the first row of an event identity win, in one pass', () => {
    keys = new RunKeys();
    expect(keys.winner(event('a'), { source: 0, line: 2 })).toBeUndefined();
    expect(keys.winner(event('b'), { source: 0, line: 3 })).toBeUndefined();
    expect(keys.winner(event('a'), { source: 0, line: 4 })).toEqual({ source: 0, line: 2 });
    // Asking again about the first row (a resume of the pass) still names no other row.
    expect(keys.winner(event('a'), { source: 0, line: 2 })).toBeUndefined();
  });
});
