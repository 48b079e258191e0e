/**
 * A settled chunk's rows, each answered: its outcome recorded in the ledger (one write for the
 * chunk), a failed row written to the rejects file, and its report line with its effect on later
 * stages.
 */
import type { RowSettlement } from '../bulk/settle-chunk.js';
import { failureLine } from '../report/failure-line.js';
import type { HeldRow, Member } from './bulk-batch.js';
import { settled } from './report-window.js';
import { baseLine, type SendDeps } from './send-row.js';
import type { StageInfo } from './stage-strategy.js';

type SettleDeps = Pick<SendDeps, 'ledger' | 'state' | 'cascade' | 'reject'>;

/**
 * The members' outcomes: in the ledger first (one write for the chunk), then each row's report
 * line and its effect on later stages. Answers whether the ledger recorded them.
 */
export async function settleRows(
  stage: StageInfo,
  deps: SettleDeps,
  members: readonly Member[],
  outcomeOf: (m: Member) => RowSettlement,
): Promise<boolean> {
  const answers = members.map((m) => answerOf(stage, deps, m.row, outcomeOf(m)));
  let note = '';
  try {
    await deps.ledger.recordOutcomes(
      stage.index,
      answers.map((a) => a.record),
    );
  } catch (error) {
    note = ` (the run's ledger could not record this answer: ${deps.state.ledgerBroke(error)}; a resume will report this row as in doubt)`;
  }
  for (const [i, m] of members.entries()) {
    const { record, reject, line, effect } = answers[i]!;
    if (reject !== undefined) await deps.reject(m.row, reject);
    m.resolve(settled({ ...line, message: record.outcome.message + note }, effect));
  }
  return note === '';
}

/** One row's outcome as the ledger records it, its report line (without the ledger's note) and its effect. */
function answerOf(stage: StageInfo, deps: SettleDeps, row: HeldRow, outcome: RowSettlement) {
  const base = baseLine(stage, row);
  const by = outcome.importId === undefined ? 'bulk import' : `bulk import ${outcome.importId}`;
  switch (outcome.kind) {
    case 'ok': {
      const message = `imported by ${by}`;
      // Bulk ok outcomes are recorded here, and only here; the row's sync key goes with it, so the
      // next incremental run knows the import accepted it.
      return {
        record: { line: row.line, outcome: { state: 'ok', message, sync: row.sync } } as const,
        reject: undefined,
        line: { ...base, status: 'ok' } as const,
        effect: deps.cascade.succeeded(row, undefined),
      };
    }
    case 'failed': {
      const line = failureLine(outcome, 'bulk_import');
      return {
        record: { line: row.line, outcome: { state: 'failed', message: line.message } } as const,
        reject: outcome.message,
        line: { ...base, ...line },
        effect: deps.cascade.failed(row, 'failed'),
      };
    }
    case 'unknown': {
      const line = failureLine(outcome, 'bulk_import');
      return {
        record: { line: row.line, outcome: { state: 'unknown', message: line.message } } as const,
        reject: undefined,
        line: { ...base, ...line },
        effect: undefined,
      };
    }
  }
}
