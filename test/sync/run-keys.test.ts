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

/** One row at a time, as a batch of one. */
const winner = (key: SyncKey, place: { source: number; line: number }) =>
  keys.winners([key], place.source, [place.line])[0];

describe('RunKeys', () => {
  it('lets the last row of an entity key in its file win; a row of another file supersedes none', () => {
    keys = new RunKeys();
    keys.noteEntity(contact('C-1'), { source: 0, line: 2 });
    keys.noteEntity(contact('C-2'), { source: 0, line: 3 });
    keys.noteEntity(contact('C-1'), { source: 0, line: 9 });
    keys.noteEntity(contact('C-2'), { source: 1, line: 2 });
    expect(winner(contact('C-1'), { source: 0, line: 2 })).toEqual({ source: 0, line: 9 });
    expect(winner(contact('C-1'), { source: 0, line: 9 })).toBeUndefined();
    // Two mappings of one resource may send different fields of the contact: both rows are sent.
    expect(winner(contact('C-2'), { source: 0, line: 3 })).toBeUndefined();
    expect(winner(contact('C-2'), { source: 1, line: 2 })).toBeUndefined();
    expect(winner(contact('C-3'), { source: 0, line: 4 })).toBeUndefined();
    // The same custom id in another resource is another entity.
    expect(winner({ ...contact('C-1'), resource: 'product' }, { source: 2, line: 2 })).toBeUndefined();
  });

  it('finds the last row of a key among more rows than one insert batch holds', () => {
    keys = new RunKeys();
    for (let line = 2; line < 2_002; line++) keys.noteEntity(contact(`C-${line % 700}`), { source: 0, line });
    // Line L has key C-(L % 700): the last row of C-2 is line 1,402, of C-601 line 2,001.
    const lines = [2, 3, 601, 1_401, 1_402, 2_001];
    expect(
      keys.winners(
        lines.map((l) => contact(`C-${l % 700}`)),
        0,
        lines,
      ),
    ).toEqual([
      { source: 0, line: 1_402 },
      { source: 0, line: 1_403 },
      { source: 0, line: 2_001 },
      undefined,
      undefined,
      undefined,
    ]);
  });

  it('lets the first row of an event identity win, in one pass', () => {
    keys = new RunKeys();
    expect(winner(event('a'), { source: 0, line: 2 })).toBeUndefined();
    expect(winner(event('b'), { source: 0, line: 3 })).toBeUndefined();
    expect(winner(event('a'), { source: 0, line: 4 })).toEqual({ source: 0, line: 2 });
    // Asking again about the first row (a resume of the pass) still names no other row.
    expect(winner(event('a'), { source: 0, line: 2 })).toBeUndefined();
  });

  it('lets the first of two rows of one identity in the same batch win, and mixes entities in', () => {
    keys = new RunKeys();
    keys.noteEntity(contact('C-1'), { source: 1, line: 2 });
    keys.noteEntity(contact('C-1'), { source: 1, line: 5 });
    expect(
      keys.winners([event('c'), contact('C-1'), event('d'), event('c'), contact('C-1')], 1, [2, 3, 4, 6, 5]),
    ).toEqual([undefined, { source: 1, line: 5 }, undefined, { source: 1, line: 2 }, undefined]);
    // A later batch of another file still sees the first row.
    expect(keys.winners([event('d')], 2, [2])).toEqual([{ source: 1, line: 4 }]);
  });
});
