import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { externalSort } from '../../src/sort/external-sort.js';
import { orderByTimestamp } from '../../src/sort/order-rows.js';
import { mulberry32 } from '../../src/sandbox/index.js';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});
const scratch = () => {
  const d = mkdtempSync(join(tmpdir(), 'engage-import-sort-test-'));
  dirs.push(d);
  return d;
};

async function* from<T>(items: readonly T[]): AsyncGenerator<T> {
  yield* items;
}
async function all<T>(items: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const i of items) out.push(i);
  return out;
}
function shuffled(n: number, seed: number): number[] {
  const random = mulberry32(seed);
  const a = Array.from({ length: n }, (_, i) => i);
  for (let i = n - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [a[i], a[j]] = [a[j]!, a[i]!];
  }
  return a;
}

describe('externalSort', () => {
  it('sorts 10,000 shuffled items through runs on disk, and removes them', async () => {
    const tmp = scratch();
    const input = shuffled(10_000, 1).map((n) => ({ n }));
    let peak = 0;
    const sorted = externalSort(from(input), { compare: (a, b) => a.n - b.n, chunkItems: 700, tmpDir: tmp });
    const out: number[] = [];
    for await (const item of sorted) {
      out.push(item.n);
      // 15 runs of at most 700 items are on disk while merging.
      if (out.length === 1) peak = readdirSync(join(tmp, readdirSync(tmp)[0]!)).length;
    }
    expect(out).toEqual(Array.from({ length: 10_000 }, (_, i) => i));
    expect(peak).toBe(15);
    expect(readdirSync(tmp)).toEqual([]);
  });

  it('merges in several passes when there are more runs than the fan-in', async () => {
    const tmp = scratch();
    const out = await all(
      externalSort(from(shuffled(2_000, 2)), { compare: (a, b) => a - b, chunkItems: 50, fanIn: 3, tmpDir: tmp }),
    );
    expect(out).toEqual(Array.from({ length: 2_000 }, (_, i) => i));
    expect(readdirSync(tmp)).toEqual([]);
  });

  it('a file that fits in one chunk never touches the disk', async () => {
    const tmp = scratch();
    expect(await all(externalSort(from([3, 1, 2]), { compare: (a, b) => a - b, tmpDir: tmp }))).toEqual([1, 2, 3]);
    expect(readdirSync(tmp)).toEqual([]);
  });

  it('stopping early still removes the runs', async () => {
    const tmp = scratch();
    for await (const n of externalSort(from(shuffled(1_000, 3)), {
      compare: (a, b) => a - b,
      chunkItems: 100,
      tmpDir: tmp,
    })) {
      if (n === 0) break;
    }
    expect(readdirSync(tmp)).toEqual([]);
    expect(existsSync(tmp)).toBe(true);
  });
});

describe('orderByTimestamp', () => {
  it('rows not valid first in file order, then valid rows by timestamp, ties in file order', async () => {
    const rows = [
      { status: 'valid', line: 2, payload: { timestamp: 30 } },
      { status: 'invalid', line: 3, message: 'x' },
      { status: 'valid', line: 4, payload: { timestamp: 10 } },
      { status: 'valid', line: 5, payload: { timestamp: 30 } },
      { status: 'invalid', line: 6, message: 'y' },
      { status: 'valid', line: 7, payload: { timestamp: 20 } },
    ];
    expect((await all(orderByTimestamp(from(rows), { chunkItems: 2, tmpDir: scratch() }))).map((r) => r.line)).toEqual([
      3, 6, 4, 7, 2, 5,
    ]);
  });
});
