/**
 * What a stage that the live import would send by bulk import costs, as a dry run tells it: its
 * uploads and status polls, and how long its imports take at the service's documented rate
 * (docs/api-contract.md R-BULK-10), each seen ended by the client's own poll schedule. The stage
 * is chosen as the live import chooses it (`bulkPlanOf`), from the stage's valid rows (an
 * incremental run that sends 500 of 50,000 contacts still goes by bulk); its imports carry the
 * rows it would send.
 * Rows a CSV cell cannot carry (`null`, `""`, `[]`) go per row in the live run, and are counted so.
 * A row whose key is already in the chunk being filled goes per row too (`chunkRepeats`): those
 * are counted as per-row requests at the run's rate. A product's later rows are not sent at all
 * (the first row creates it; the live run refuses the others without a request).
 */
import type { ResolvedMapping, ResourceName } from '../config/mapping-schema.js';
import type { FileSummary } from '../report/summary.js';
import { DEFAULT_POLL_DELAYS_MS } from '../transport/bulk-client.js';
import { pollsToSeeEnd } from '../transport/bulk-poll-pause.js';
import { uncarriedField } from '../bulk/chunk-csv.js';
import { bulkPlanOf, bulkRowKey } from './bulk-choice.js';
import type { BulkOptions } from './bulk-options.js';

/** The import rate the platform's documentation shows (10,999 users in 24.4 s). */
export const DOCUMENTED_IMPORT_ROWS_PER_S = 450;

/**
 * Turns a dry run's file summary from one request per row to send into its bulk imports, when the
 * live import would send the stage by bulk. A products stage's `changed` rows are updates, which
 * only the import makes (`bulkPlanOf`).
 */
export function estimateBulk(
  summary: FileSummary,
  mapping: ResolvedMapping,
  options: BulkOptions | undefined,
  /**
   * Rows sent per row for a key that repeats in a chunk, rows not sent for a product an earlier
   * row creates (`chunkRepeats`), and the run's requests per second.
   */
  perRow: { readonly rows: number; readonly notSent?: number; readonly rate: number } = { rows: 0, rate: 10 },
): void {
  const sent = summary.requests;
  const valid = Object.entries(summary.counts).reduce(
    (n, [status, count]) => (status === 'invalid' ? n : n + count),
    0,
  );
  // Rows sent to a record the state says exists (changed, or unchanged on a full refresh): for
  // products, updates, which only the import makes. A plain preview knows of none (`valid`).
  const updates = Math.max(0, sent - summary.counts.new - summary.counts.valid);
  if (sent === 0 || bulkPlanOf(mapping, valid, options, updates) === undefined) return;
  const notSent = perRow.notSent ?? 0;
  const rows = sent - perRow.rows - notSent;
  const chunk = options!.chunkRows;
  // Full chunks all cost the same: one replay for them, one for the last, shorter chunk.
  const full = Math.floor(rows / chunk);
  const rest = rows % chunk;
  const fullSeen = pollsToSeeEnd(chunk, DOCUMENTED_IMPORT_ROWS_PER_S, DEFAULT_POLL_DELAYS_MS);
  const restSeen = rest > 0 ? pollsToSeeEnd(rest, DOCUMENTED_IMPORT_ROWS_PER_S, DEFAULT_POLL_DELAYS_MS) : undefined;
  const imports = full + (restSeen ? 1 : 0);
  const requests = imports + full * fullSeen.polls + (restSeen?.polls ?? 0) + perRow.rows;
  const ms = full * fullSeen.ms + (restSeen?.ms ?? 0) + (perRow.rows / perRow.rate) * 1000;
  summary.requests = requests;
  summary.bulk = {
    rows,
    imports,
    ...(perRow.rows > 0 && { perRow: perRow.rows }),
    ...(notSent > 0 && { notSent }),
    estimate: { seconds: ms / 1000, rowsPerS: DOCUMENTED_IMPORT_ROWS_PER_S },
  };
}

/**
 * Counts, as a dry run reads a stage's rows to send, those the live import would send per row
 * because their key is already in the chunk being filled (`bulk-strategy.ts`): one import cannot
 * hold two rows of a key. The chunks are followed as they fill, `chunkRows` keys at most held.
 * Products differ: the first row of a product creates it and the live run refuses its later rows
 * without a request, whichever chunk they fall in (`bulk-duplicate-creates.ts`), so every product
 * key of the stage is held and a repeat counts as not sent.
 */
export function chunkRepeats(resource: ResourceName, chunkRows: number) {
  const stageWide = resource === 'product';
  let keys = new Set<string>();
  let members = 0;
  let repeats = 0;
  let notSent = 0;
  return {
    add(payload: Readonly<Record<string, unknown>>): void {
      const key = bulkRowKey(resource, payload);
      // A value no CSV cell carries: the live run sends the row per row.
      const uncarried = uncarriedField(payload) !== undefined;
      if (stageWide) {
        if (key !== undefined && keys.has(key)) notSent++;
        else {
          if (key !== undefined) keys.add(key);
          if (uncarried) repeats++;
        }
        return;
      }
      if (uncarried || (key !== undefined && keys.has(key))) {
        repeats++;
        // The later rows of its key follow it per row, in order, while the chunk fills.
        if (key !== undefined) keys.add(key);
        return;
      }
      if (key !== undefined) keys.add(key);
      if (++members >= chunkRows) {
        keys = new Set();
        members = 0;
      }
    },
    /** Rows sent per row: their key repeats in the chunk being filled, or a cell cannot carry a value. */
    get repeats(): number {
      return repeats;
    },
    /** Product rows not sent: an earlier row of the stage creates their product. */
    get notSent(): number {
      return notSent;
    },
  };
}
