import { externalSort, type ExternalSortOptions } from './external-sort.js';

/** What ordering needs of a planned row: its status, its line, and a valid row's payload timestamp. */
interface OrderableRow {
  readonly status: string;
  readonly line: number;
  readonly payload?: Readonly<Record<string, unknown>> | undefined;
}

const timestampOf = (row: OrderableRow): number => {
  const t = row.payload?.['timestamp'];
  return typeof t === 'number' ? t : Number.NEGATIVE_INFINITY;
};

/**
 * Rows that are not valid first, in file order (they are reported, never sent); then the valid
 * rows by ascending timestamp, ties in file order. A total order that depends only on the file,
 * so a resumed run sends in the same order.
 */
function sendOrder(a: OrderableRow, b: OrderableRow): number {
  const av = a.status === 'valid';
  const bv = b.status === 'valid';
  if (av !== bv) return av ? 1 : -1;
  return (av ? timestampOf(a) - timestampOf(b) : 0) || a.line - b.line;
}

/**
 * `order: timestamp`: the file's rows with its valid rows in ascending timestamp order, so each
 * product ends with the attributes of its latest event. Every row goes through the external
 * sort (src/sort/external-sort.ts), so at most `chunkItems` rows are in memory, whatever the
 * size of the file; rows are plain JSON (strings, numbers, objects), which the runs keep exactly.
 */
export function orderByTimestamp<R extends OrderableRow>(
  rows: AsyncIterable<R>,
  options: Omit<ExternalSortOptions<R>, 'compare'> = {},
): AsyncGenerator<R> {
  return externalSort(rows, { ...options, compare: sendOrder });
}
