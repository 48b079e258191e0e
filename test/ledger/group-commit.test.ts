import { describe, expect, it } from 'vitest';
import { GroupCommit } from '../../src/ledger/group-commit.js';
import { nextTurn } from './_helpers.js';

/** A manual scheduler: flushes run only when the test says so. */
function manual() {
  const queued: (() => void)[] = [];
  return {
    schedule: (f: () => void) => void queued.push(f),
    run: () => {
      for (const f of queued.splice(0)) f();
    },
    get size() {
      return queued.length;
    },
  };
}

describe('GroupCommit', () => {
  it('commits everything requested in one tick as one batch and resolves all its waiters together', async () => {
    const batches: number[][] = [];
    const group = new GroupCommit<number>({ commit: (b) => void batches.push([...b]) });
    const settled: number[] = [];
    const waits = Array.from({ length: 50 }, (_, i) => group.enqueue(i).then(() => settled.push(i)));
    expect(group.pending).toBe(50);
    await Promise.all(waits);
    expect(batches).toEqual([Array.from({ length: 50 }, (_, i) => i)]);
    expect(group.commits).toBe(1);
    expect(settled).toHaveLength(50);
  });

  it('resolves nobody before the commit has run (the request must not leave before its intent is durable)', async () => {
    const clock = manual();
    const group = new GroupCommit<string>({ commit: () => undefined, schedule: clock.schedule });
    let resolved = false;
    const wait = group.enqueue('intent').then(() => (resolved = true));
    await nextTurn();
    expect(resolved).toBe(false);
    expect(clock.size).toBe(1);
    clock.run();
    await wait;
    expect(resolved).toBe(true);
  });

  it('starts a new batch for writes requested after the flush', async () => {
    const batches: string[][] = [];
    const group = new GroupCommit<string>({ commit: (b) => void batches.push([...b]) });
    await Promise.all([group.enqueue('a'), group.enqueue('b')]);
    await group.enqueue('c');
    expect(batches).toEqual([['a', 'b'], ['c']]);
  });

  it('rejects every waiter of a failed batch with the commit error, and goes on with the next', async () => {
    let fail = true;
    const group = new GroupCommit<string>({
      commit: () => {
        if (fail) throw new Error('disk full');
      },
    });
    const results = await Promise.allSettled([group.enqueue('a'), group.enqueue('b')]);
    expect(results.map((r) => (r.status === 'rejected' ? (r.reason as Error).message : 'ok'))).toEqual([
      'disk full',
      'disk full',
    ]);
    expect(group.commits).toBe(0);
    fail = false;
    await group.enqueue('c');
    expect(group.commits).toBe(1);
  });

  it('flush() commits at once; a scheduled flush that finds nothing left does nothing', async () => {
    const clock = manual();
    const batches: string[][] = [];
    const group = new GroupCommit<string>({ commit: (b) => void batches.push([...b]), schedule: clock.schedule });
    const a = group.enqueue('a');
    await group.flush();
    await a;
    clock.run();
    expect(batches).toEqual([['a']]);
    expect(group.commits).toBe(1);
  });

  it('close() flushes what is queued, then refuses new writes', async () => {
    const clock = manual();
    const batches: string[][] = [];
    const group = new GroupCommit<string>({ commit: (b) => void batches.push([...b]), schedule: clock.schedule });
    const a = group.enqueue('a');
    await group.close();
    await a;
    expect(batches).toEqual([['a']]);
    await expect(group.enqueue('b')).rejects.toThrow('group commit used after close');
  });
});
