/**
 * What a stage that the live import would send by bulk import costs, as a dry run tells it: its
 * uploads and status polls, and how long its imports take at the service's documented rate
 * (docs/api-contract.md R-BULK-10), each seen ended by the client's own poll schedule. The stage
 * is chosen as the live import chooses it (`bulkPlanOf`), from the stage's valid rows (an
 * incremental run that sends 500 of 50,000 contacts still goes by bulk); its imports carry the
 * rows it would send.
 * Rows a CSV cell cannot carry go per row in the live run; the estimate counts them as imported.
 */
import type { ResolvedMapping } from '../config/mapping-schema.js';
import type { FileSummary } from '../report/summary.js';
import { DEFAULT_POLL_DELAYS_MS } from '../transport/bulk-client.js';
import { pollsToSeeEnd } from '../transport/bulk-poll-pause.js';
import { bulkPlanOf } from './bulk-choice.js';
import type { BulkOptions } from './bulk-options.js';

/** The import rate the platform's documentation shows (10,999 users in 24.4 s). */
export const DOCUMENTED_IMPORT_ROWS_PER_S = 450;

/**
 * Turns a dry run's file summary from one request per row to send into its bulk imports, when the
 * live import would send the stage by bulk. A products stage's `changed` rows are updates, which
 * only the import makes (`bulkPlanOf`).
 */
export function estimateBulk(summary: FileSummary, mapping: ResolvedMapping, options: BulkOptions | undefined): void {
  const rows = summary.requests;
  const valid = Object.entries(summary.counts).reduce(
    (n, [status, count]) => (status === 'invalid' ? n : n + count),
    0,
  );
  // Rows sent to a record the state says exists (changed, or unchanged on a full refresh): for
  // products, updates, which only the import makes. A plain preview knows of none (`valid`).
  const updates = Math.max(0, rows - summary.counts.new - summary.counts.valid);
  if (rows === 0 || bulkPlanOf(mapping, valid, options, updates) === undefined) return;
  const chunk = options!.chunkRows;
  // Full chunks all cost the same: one replay for them, one for the last, shorter chunk.
  const full = Math.floor(rows / chunk);
  const rest = rows % chunk;
  const fullSeen = pollsToSeeEnd(chunk, DOCUMENTED_IMPORT_ROWS_PER_S, DEFAULT_POLL_DELAYS_MS);
  const restSeen = rest > 0 ? pollsToSeeEnd(rest, DOCUMENTED_IMPORT_ROWS_PER_S, DEFAULT_POLL_DELAYS_MS) : undefined;
  const imports = full + (restSeen ? 1 : 0);
  const requests = imports + full * fullSeen.polls + (restSeen?.polls ?? 0);
  const ms = full * fullSeen.ms + (restSeen?.ms ?? 0);
  summary.requests = requests;
  summary.bulk = {
    rows,
    imports,
    estimate: { seconds: ms / 1000, rowsPerS: DOCUMENTED_IMPORT_ROWS_PER_S },
  };
}
