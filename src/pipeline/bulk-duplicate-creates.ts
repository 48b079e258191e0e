/**
 * One custom_id on several rows of a products stage. Per row, a product is a create (`POST
 * products/`, refused with "already exists" once the custom_id is taken): the first row
 * creates the record and a later row with its key fails; the bulk importer is an upsert and would
 * apply both. So that both paths give every row the same status, a later row with a key that an
 * earlier row of the stage carries is never uploaded: it waits for that earlier row, then
 * - when a row of the stage created the record (`ok`), it is `failed`, as the per-row create
 *   would be, with the same words and the line that created it;
 * - otherwise it is sent per row (a create), exactly as the per-row path sends it.
 * Incremental runs never get here with such a row: the earlier rows with the later one's key are
 * `superseded` before they reach a strategy (docs/incremental.md).
 *
 * Memory: one entry per key of the stage (the key, and whether a row created it).
 */
import { settled, type Settled } from './report-window.js';
import { baseLine, type SendDeps } from './send-row.js';
import type { SendableRow, StageInfo } from './stage-strategy.js';
import type { LedgerEntry } from '../ledger/index.js';

type Send = (row: SendableRow, before: LedgerEntry | undefined) => Promise<Settled>;

type RefusalDeps = Pick<SendDeps, 'ledger' | 'state' | 'cascade' | 'reject'>;

/** The line of the stage's row that created the record, or undefined when none did (yet). */
type Creator = number | undefined;

/**
 * @param keyOf the row's key as the importer upserts by (the product's custom_id).
 * @param toChunk how a row whose key is new to the stage is sent (into a chunk).
 * @param perRow how a later row whose key no earlier row created is sent (per row).
 */
export function withDuplicateCreates(
  stage: StageInfo,
  deps: RefusalDeps,
  keyOf: (row: SendableRow) => string | undefined,
  toChunk: Send,
  perRow: Send,
): { readonly send: Send; readonly learn: (row: SendableRow, entry: LedgerEntry) => void } {
  /** Key → the line that created its record, or the settling of the last row that carries it. */
  const keys = new Map<string, number | Promise<Creator>>();

  /** The row is now the last with its key: the next one with it waits for this. */
  const track = (key: string, creator: Promise<Creator>): void => {
    keys.set(key, creator);
    // Once known, the entry becomes a number (or goes): no promise is kept per key.
    void creator.then((line) => {
      if (keys.get(key) !== creator) return;
      if (line === undefined) keys.delete(key);
      else keys.set(key, line);
    });
  };
  const createdBy = (row: SendableRow, answer: Promise<Settled>): Promise<Creator> =>
    answer.then(
      (s) => (s.line.status === 'ok' ? row.line : undefined),
      () => undefined,
    );

  /**
   * A row a resumed run reported from its ledger: one that created its record makes later rows
   * with its key duplicates; one that may have (`unknown`) sends them per row, as a create, so
   * the API says whether the product exists rather than an upload overwriting it.
   */
  const learn = (row: SendableRow, entry: LedgerEntry): void => {
    const key = keyOf(row);
    if (key === undefined || keys.has(key)) return;
    if (entry.state === 'ok') keys.set(key, row.line);
    else if (entry.state === 'unknown') keys.set(key, Promise.resolve(undefined));
  };

  const send: Send = (row, before) => {
    const key = keyOf(row);
    if (key === undefined) return toChunk(row, before);
    const earlier = keys.get(key);
    if (earlier === undefined) {
      const answer = toChunk(row, before);
      track(key, createdBy(row, answer));
      return answer;
    }
    const answer = Promise.resolve(earlier).then((created) =>
      created === undefined ? perRow(row, before) : refused(stage, deps, row, created),
    );
    // A record created by an earlier row stays created, whatever this row comes to.
    track(
      key,
      Promise.resolve(earlier).then((created) => created ?? createdBy(row, answer)),
    );
    return answer;
  };
  return { send, learn };
}

/** The row a per-row create would have seen refused: recorded, rejected and reported as such, not sent. */
async function refused(stage: StageInfo, deps: RefusalDeps, row: SendableRow, creator: number): Promise<Settled> {
  const base = baseLine(stage, row);
  if (deps.state.stopReason !== undefined)
    return settled({ ...base, status: 'not_sent', message: deps.state.stopReason });
  const message = `custom_id: product with this custom id already exists. (line ${creator} of this file already sent this product in this run, and a second create is refused, so this row was not uploaded)`;
  let note = '';
  try {
    await deps.ledger.recordOutcome(stage.index, row.line, { state: 'failed', message });
  } catch (error) {
    note = ` (the run's ledger could not record this answer: ${deps.state.ledgerBroke(error)})`;
  }
  await deps.reject(row, message);
  // The product exists (line `creator` made it): rows that name it as their parent are sent.
  return settled({ ...base, status: 'failed', message: message + note }, deps.cascade.succeeded(row, undefined));
}
