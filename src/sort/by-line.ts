import { externalSort } from './external-sort.js';

/** A report line as far as ordering goes: the input line it stands for. */
interface Lined {
  readonly line: number;
}

/**
 * Puts the report lines of a stage sent out of input order (`order: timestamp`) back in input
 * order before they reach the report: `push` takes each line as it settles, `end` writes them all,
 * sorted by line, through `write`. Held on disk past 50,000 lines (src/sort/external-sort.ts), so
 * a long file costs disk, not memory.
 */
export function reorderByLine<L extends Lined>(
  write: (line: L) => Promise<void>,
): { push(line: L): void; end(): Promise<void> } {
  const waiting: L[] = [];
  let wake: (() => void) | undefined;
  let closed = false;
  const incoming: AsyncIterable<L> = {
    async *[Symbol.asyncIterator]() {
      for (;;) {
        while (waiting.length > 0) yield waiting.shift()!;
        if (closed) return;
        await new Promise<void>((resolve) => {
          wake = resolve;
        });
        wake = undefined;
      }
    },
  };
  const written = (async () => {
    for await (const line of externalSort(incoming, { compare: (a, b) => a.line - b.line })) await write(line);
  })();
  return {
    push(line) {
      waiting.push(line);
      wake?.();
    },
    async end() {
      closed = true;
      wake?.();
      await written;
    },
  };
}
