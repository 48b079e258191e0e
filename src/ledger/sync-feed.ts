import type { ResourceName } from '../config/mapping-schema.js';
import { guard, openDb, readMeta } from './_database.js';
import { ledgerFile } from './run-dirs.js';
import type { OutboxDelta } from './types.js';

/** One run's sync outbox, read-only: what the sync state applies (src/sync/ledger-feed.ts). */
export interface OutboxFeed {
  readonly runId: string;
  readonly finished: boolean;
  readonly fingerprints: Readonly<Partial<Record<ResourceName, string>>>;
  /** Outbox rows with `seq > after`, ascending, at most `limit`. */
  deltasAfter(after: number, limit: number): readonly OutboxDelta[];
  close(): void;
}

/**
 * Opens a run's ledger for reading its outbox, beside the run's own writer if it is running (WAL:
 * a reader sees every committed transaction and never blocks the writer). A ledger written before
 * the outbox existed has no deltas.
 */
export function openSyncFeed(runDir: string, options: { cwd?: string } = {}): OutboxFeed {
  const place = { file: ledgerFile(runDir), cwd: options.cwd ?? process.cwd() };
  const db = openDb(place, 'existing');
  try {
    const meta = readMeta(db, place);
    const fingerprintsJson = guard(
      place,
      () => db.prepare(`SELECT value FROM meta WHERE key = 'fingerprints'`).pluck().get() as string | undefined,
    );
    const fingerprints =
      fingerprintsJson === undefined ? {} : (JSON.parse(fingerprintsJson) as Partial<Record<ResourceName, string>>);
    const hasOutbox = guard(
      place,
      () => db.prepare(`SELECT 1 FROM sqlite_schema WHERE type = 'table' AND name = 'sync_outbox'`).get() !== undefined,
    );
    const select = hasOutbox
      ? db.prepare<[number, number], OutboxDelta>(
          `SELECT seq, resource, kind, key, hash, at FROM sync_outbox WHERE seq > ? ORDER BY seq LIMIT ?`,
        )
      : undefined;
    const finished = db.prepare(`SELECT 1 FROM meta WHERE key = 'finished_at'`);
    return {
      runId: meta.runId,
      // Read each time: a feed kept open through a run sees the run finish.
      get finished() {
        return guard(place, () => finished.get() !== undefined);
      },
      fingerprints,
      deltasAfter: (after, limit) => (select === undefined ? [] : guard(place, () => select.all(after, limit))),
      close: () => db.close(),
    };
  } catch (error) {
    db.close();
    throw error;
  }
}
