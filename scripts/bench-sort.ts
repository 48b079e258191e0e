/**
 * `npm run bench:sort`: 100,000 product events in shuffled time order go through the
 * `order: timestamp` sort (src/sort/order-rows.ts), each configuration in its own process so
 * that its peak memory is its own: chunks of 10,000 rows (runs on disk) against one chunk of
 * all 100,000 (the whole file in memory). Prints rows/s, peak heap and RSS, runs written, and
 * checks that the output is in time order with every row once. Heap is measured after a full
 * garbage collection (--expose-gc) every 5,000 rows: what the sort holds, not garbage not yet collected.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { orderByTimestamp } from '../src/sort/order-rows.js';
import { mulberry32 } from '../src/sandbox/index.js';

const ROWS = 100_000;

/** A planned product-event row as the pipeline holds it (~600 bytes as JSON). */
function row(line: number, t: number) {
  const sku = `SKU-${t % 5000}`;
  const payload = {
    custom_id: sku,
    user_custom_id: `C-${t % 20_000}`,
    event_type: 'view',
    timestamp: 1_767_225_600 + t,
    data: { session: `s-${t.toString(36)}`, referrer: 'newsletter', quantity: 1, price: 249 },
  };
  return {
    status: 'valid' as const,
    line,
    key: `PE-${line}`,
    fields: [`PE-${line}`, sku, payload.user_custom_id, 'view', String(payload.timestamp)],
    payload,
    call: { method: 'POST', path: `products-by-id/${sku}/product_event/`, body: payload },
    idempotent: false,
  };
}

async function child(chunkItems: number): Promise<void> {
  const random = mulberry32(2026);
  const order = Array.from({ length: ROWS }, (_, i) => i);
  for (let i = ROWS - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [order[i], order[j]] = [order[j]!, order[i]!];
  }
  let peakHeap = 0; // after a collection: what is retained
  let peakRss = 0;
  const gc = (globalThis as { gc?: () => void }).gc;
  const sample = (collect = false) => {
    if (collect) gc?.();
    const m = process.memoryUsage();
    if (collect) peakHeap = Math.max(peakHeap, m.heapUsed);
    peakRss = Math.max(peakRss, m.rss);
  };
  const timer = setInterval(() => sample(), 5);
  async function* rows() {
    for (let i = 0; i < ROWS; i++) {
      if (i % 5000 === 4999) sample(true);
      yield row(i + 2, order[i]!);
    }
  }
  const tmp = mkdtempSync(join(tmpdir(), 'bench-sort-'));
  let runs = 0;
  const started = performance.now();
  let last = -1;
  let count = 0;
  let inOrder = true;
  for await (const r of orderByTimestamp(rows(), { chunkItems, tmpDir: tmp })) {
    if (count === 0) runs = readdirSync(tmp).flatMap((d) => readdirSync(join(tmp, d))).length;
    if (r.payload.timestamp < last) inOrder = false;
    last = r.payload.timestamp;
    count++;
    if (count % 5000 === 0) sample(true);
  }
  const seconds = (performance.now() - started) / 1000;
  clearInterval(timer);
  rmSync(tmp, { recursive: true, force: true });
  process.stdout.write(
    JSON.stringify({
      chunkItems,
      rows: count,
      inOrder,
      runs,
      rowsPerS: Math.round(count / seconds),
      peakHeapMB: Math.round(peakHeap / 2 ** 20),
      peakRssMB: Math.round(peakRss / 2 ** 20),
    }),
  );
}

if (process.argv[2] === '--child') {
  await child(Number(process.argv[3]));
} else {
  console.log(`order: timestamp on ${ROWS.toLocaleString('en-US')} shuffled product events`);
  for (const chunk of [10_000, ROWS]) {
    const out = execFileSync(
      process.execPath,
      ['--expose-gc', '--import', 'tsx', new URL(import.meta.url).pathname, '--child', String(chunk)],
      { encoding: 'utf8' },
    );
    const r = JSON.parse(out) as Record<string, unknown>;
    const label = chunk === ROWS ? 'one chunk (all in memory)' : `chunks of ${chunk.toLocaleString('en-US')}`;
    console.log(
      `  ${label.padEnd(28)} ${String(r['rows'])} rows, in order: ${String(r['inOrder'])}, runs on disk: ${String(r['runs'])}, ${String(r['rowsPerS'])} rows/s, peak heap ${String(r['peakHeapMB'])} MB, peak RSS ${String(r['peakRssMB'])} MB`,
    );
  }
}
