/** The first row of a file whose timestamp goes back in time for its product. */
interface OutOfOrder {
  readonly line: number;
  /** The earlier line of the same product with a later timestamp. */
  readonly after: number;
  /** Rows that go back in time for their product, in the whole file. */
  readonly count: number;
}

/**
 * Each product event overwrites the product's attributes (docs/api-contract.md, product
 * events: order matters), so events sent out of time order leave the product as an older event
 * said. This watches valid rows in file order and keeps, per product, the latest timestamp seen
 * and its line: memory grows with the number of products, not rows.
 */
class TimestampOrder {
  private readonly latest = new Map<string, { timestamp: number; line: number }>();
  private first: { line: number; after: number } | undefined;
  private backwards = 0;

  add(line: number, product: unknown, timestamp: unknown): void {
    if (typeof product !== 'string' || typeof timestamp !== 'number') return;
    const seen = this.latest.get(product);
    if (seen !== undefined && timestamp < seen.timestamp) {
      this.backwards++;
      this.first ??= { line, after: seen.line };
      return;
    }
    this.latest.set(product, { timestamp, line });
  }

  /** `undefined` while every product's events are in ascending time order. */
  result(): OutOfOrder | undefined {
    return this.first === undefined ? undefined : { ...this.first, count: this.backwards };
  }
}

/** The warning `validate` prints for a file out of order (or the note when the mapping sorts it). */
function orderWarning(file: string, found: OutOfOrder, sorts: boolean): string {
  const rows = found.count === 1 ? '1 row goes' : `${found.count} rows go`;
  const where = `${file} line ${found.line}: its timestamp is earlier than line ${found.after}'s for the same product (${rows} back in time)`;
  return sorts
    ? `${where}; the mapping says \`order: timestamp\`, so the import sends the valid rows sorted by timestamp`
    : `${where}. Each product event overwrites the product's attributes, so the older event sent last would win: sort the file by timestamp, or add \`order: timestamp\` to the mapping`;
}

/**
 * The order check of one file as the dry run uses it: product-event files only; `add` every
 * planned row in file order, `end` pushes the warning (if any) onto `warnings`.
 */
export function watchTimestampOrder(
  mapping: { readonly resource: string; readonly order?: 'timestamp' | undefined },
  file: string,
  warnings: string[],
): {
  add(row: {
    readonly status: string;
    readonly line: number;
    readonly payload?: Readonly<Record<string, unknown>> | undefined;
  }): void;
  end(): void;
} {
  if (mapping.resource !== 'product-event') return { add: () => undefined, end: () => undefined };
  const order = new TimestampOrder();
  return {
    add(row) {
      if (row.status === 'valid') order.add(row.line, row.payload?.['custom_id'], row.payload?.['timestamp']);
    },
    end() {
      const found = order.result();
      if (found !== undefined) warnings.push(orderWarning(file, found, mapping.order === 'timestamp'));
    },
  };
}
