import type { ExternalSortOptions } from './external-sort.js';
import { orderByTimestamp } from './order-rows.js';

/**
 * The rows of one file in the order they are sent: as read, or with `order: timestamp` in the
 * mapping, sorted by timestamp (src/sort/order-rows.ts).
 */
export function inSendOrder<
  R extends {
    readonly status: string;
    readonly line: number;
    readonly payload?: Readonly<Record<string, unknown>> | undefined;
  },
>(
  mapping: { readonly order?: 'timestamp' | undefined },
  rows: AsyncIterable<R>,
  options: Omit<ExternalSortOptions<R>, 'compare'> = {},
): AsyncIterable<R> {
  return mapping.order === 'timestamp' ? orderByTimestamp(rows, options) : rows;
}
