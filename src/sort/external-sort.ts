import { createReadStream } from 'node:fs';
import { mkdtemp, open, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';

export interface ExternalSortOptions<T> {
  /** Negative when `a` goes first. Must be a total order (tie-break on the line) for a stable, repeatable result. */
  readonly compare: (a: T, b: T) => number;
  /**
   * Items held in memory at once: the memory bound. A file with fewer items is sorted in memory
   * and never touches the disk. Default 50,000 (a product event of ~1 KB as JSON: ~50 MB, plus
   * one item and one 64 KiB read buffer per run while merging).
   */
  readonly chunkItems?: number;
  /** Runs merged at once; more runs are first merged into longer ones. Default 64. */
  readonly fanIn?: number;
  /** Where the runs are written (a fresh folder inside it, removed at the end). Default: the OS temp folder. */
  readonly tmpDir?: string;
  /** Items are written as one JSON line each; these default to JSON.stringify / JSON.parse. */
  readonly serialize?: (item: T) => string;
  readonly deserialize?: (line: string) => T;
}

/**
 * Sort a stream that may not fit in memory: sorted chunks of `chunkItems` are written to disk
 * as runs (NDJSON), then merged `fanIn` at a time with a binary heap. Memory stays at
 * `chunkItems` items however long the input; the disk holds the input once (twice while a
 * merge pass writes longer runs). The temporary folder is removed when iteration ends, however
 * it ends.
 */
export async function* externalSort<T>(items: AsyncIterable<T>, options: ExternalSortOptions<T>): AsyncGenerator<T> {
  const chunkItems = options.chunkItems ?? 50_000;
  const fanIn = Math.max(2, options.fanIn ?? 64);
  const serialize = options.serialize ?? ((item: T) => JSON.stringify(item));
  const deserialize = options.deserialize ?? ((line: string) => JSON.parse(line) as T);
  let chunk: T[] = [];
  let dir: string | undefined;
  let runs: string[] = [];
  try {
    for await (const item of items) {
      // A run is written only when an item does not fit: an input of exactly `chunkItems` stays in memory.
      if (chunk.length >= chunkItems) {
        dir ??= await mkdtemp(join(options.tmpDir ?? tmpdir(), 'engage-import-sort-'));
        runs.push(await writeRun(join(dir, `run-${runs.length}.ndjson`), chunk.sort(options.compare), serialize));
        chunk = [];
      }
      chunk.push(item);
    }
    chunk.sort(options.compare);
    if (runs.length === 0) {
      yield* chunk;
      return;
    }
    if (chunk.length > 0) runs.push(await writeRun(join(dir!, `run-${runs.length}.ndjson`), chunk, serialize));
    chunk = [];
    let pass = 0;
    while (runs.length > fanIn) {
      const longer: string[] = [];
      for (let i = 0; i < runs.length; i += fanIn) {
        const group = runs.slice(i, i + fanIn);
        longer.push(
          await writeRun(
            join(dir!, `pass-${pass}-${longer.length}.ndjson`),
            merge(group, options.compare, deserialize),
            serialize,
          ),
        );
        await Promise.all(group.map((r) => rm(r, { force: true })));
      }
      runs = longer;
      pass++;
    }
    yield* merge(runs, options.compare, deserialize);
  } finally {
    if (dir !== undefined) await rm(dir, { recursive: true, force: true });
  }
}

async function writeRun<T>(
  path: string,
  items: Iterable<T> | AsyncIterable<T>,
  serialize: (item: T) => string,
): Promise<string> {
  const file = await open(path, 'w');
  try {
    let batch = '';
    for await (const item of items) {
      batch += `${serialize(item)}\n`;
      if (batch.length >= 1 << 16) {
        await file.write(batch);
        batch = '';
      }
    }
    if (batch !== '') await file.write(batch);
  } finally {
    await file.close();
  }
  return path;
}

/** K-way merge of sorted runs: a binary heap holding the head item of each run. */
async function* merge<T>(
  runs: readonly string[],
  compare: (a: T, b: T) => number,
  deserialize: (line: string) => T,
): AsyncGenerator<T> {
  const readers = runs.map((path) =>
    createInterface({ input: createReadStream(path, { highWaterMark: 1 << 16 }), crlfDelay: Infinity })[
      Symbol.asyncIterator
    ](),
  );
  try {
    const heap: { item: T; run: number }[] = [];
    const less = (i: number, j: number) => {
      const c = compare(heap[i]!.item, heap[j]!.item);
      return c < 0 || (c === 0 && heap[i]!.run < heap[j]!.run);
    };
    const swap = (i: number, j: number) => {
      [heap[i], heap[j]] = [heap[j]!, heap[i]!];
    };
    const up = (i: number) => {
      while (i > 0 && less(i, (i - 1) >> 1)) {
        swap(i, (i - 1) >> 1);
        i = (i - 1) >> 1;
      }
    };
    const down = (i: number) => {
      for (;;) {
        const l = 2 * i + 1;
        const r = l + 1;
        let m = i;
        if (l < heap.length && less(l, m)) m = l;
        if (r < heap.length && less(r, m)) m = r;
        if (m === i) return;
        swap(i, m);
        i = m;
      }
    };
    const pull = async (run: number): Promise<T | undefined> => {
      for (;;) {
        const next = await readers[run]!.next();
        if (next.done) return undefined;
        if (next.value !== '') return deserialize(next.value);
      }
    };
    for (let run = 0; run < readers.length; run++) {
      const item = await pull(run);
      if (item !== undefined) {
        heap.push({ item, run });
        up(heap.length - 1);
      }
    }
    while (heap.length > 0) {
      const top = heap[0]!;
      yield top.item;
      const item = await pull(top.run);
      if (item !== undefined) {
        heap[0] = { item, run: top.run };
      } else {
        const last = heap.pop()!;
        if (heap.length === 0) break;
        heap[0] = last;
      }
      down(0);
    }
  } finally {
    for (const r of readers) await r.return?.();
  }
}
