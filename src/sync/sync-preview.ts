import type { ResolvedMapping, ResourceName } from '../config/mapping-schema.js';
import {
  classifyRow,
  mappingChangeNote,
  SYNC_STATUSES,
  type Classification,
  type SyncMode,
  type SyncStatus,
} from './classify.js';
import { mappingFingerprint, mappingHeld } from './mapping-fingerprint.js';
import { EarlierSends, type EarlierSend } from './earlier-sends.js';
import { RunKeys, type RowPlace } from './run-keys.js';
import { forgetCommand, resendCommand } from './forget-command.js';
import {
  createSyncKeyer,
  entityKeyOf,
  knownByCells,
  sendsOccurrences,
  type KeyedRow,
  type SyncKey,
} from './sync-key.js';
import { DOUBT_PREFIX } from './_state-db.js';
import type { StoredEntry, SyncState } from './sync-state.js';

/** A valid row as the classifier sees it: the keyer's inputs plus its line. */
export interface ClassifiedRow extends KeyedRow {
  readonly line: number;
}

/** The classifier of one input file (one mapping) of the run. */
export interface SourceClassifier {
  /** Whether `note` must see every valid row before the first `classify` (entities: the later row wins). */
  readonly needsFirstPass: boolean;
  /** First pass: a valid row, in input order. */
  note(row: ClassifiedRow): void;
  /**
   * Second (or only) pass: the next valid rows, in input order, as one batch (one state lookup
   * per few hundred rows: a point lookup per row costs several times as much).
   */
  classify(
    rows: readonly ClassifiedRow[],
    /**
     * Rows that will be skipped (a parent failed): checked against the state like any other, but
     * an event among them claims no identity, so a later row with it is sent rather than superseded.
     */
    blocked?: readonly boolean[],
  ): (Classification & { readonly key: SyncKey })[];
  /**
   * How many of these rows would be sent to an entity the state says the account has: `changed`,
   * or `unchanged` resent by a full refresh. Counts nothing, decides nothing for `classify`: a
   * products stage asks it before choosing how to send (products are updated only by bulk import).
   */
  updates(rows: readonly ClassifiedRow[]): number;
}

/** What `validate --incremental` and an incremental live run ask of the sync state. */
export interface RunClassifier {
  /** Call once per file, in run order; `file` is how the report names it. */
  forSource(index: number, mapping: ResolvedMapping, header: readonly string[], file: string): SourceClassifier;
  /** Sentences for the summary: most rows changed because a mapping did. */
  notes(): string[];
  close(): void;
}

export interface RunClassifierOptions {
  /** The job's state; undefined when it has none yet (every row is new). */
  readonly state: SyncState | undefined;
  readonly mode: SyncMode;
  /** Run options that shape requests (deal update method), part of each mapping's fingerprint. */
  readonly requestOptions?: Readonly<Record<string, unknown>>;
  /**
   * A preview only: the resources more than one file of the job sends. A live run applies each
   * stage's accepted rows to the state before the next, so a later file's entity rows are
   * compared with what the earlier files send (`EarlierSends`), not with the state as it was.
   */
  readonly comparesWithEarlierFiles?: ReadonlySet<ResourceName>;
}

/**
 * Classifies the valid rows of a run against the sync state: state lookups batched through
 * prepared statements, duplicated keys found through RunKeys, counts kept per file for the
 * mapping-change note.
 */
export function createRunClassifier(options: RunClassifierOptions): RunClassifier {
  const keys = new RunKeys();
  const earlierSends = (options.comparesWithEarlierFiles?.size ?? 0) > 0 ? new EarlierSends() : undefined;
  const commands = {
    forget: forgetCommand(options.state),
    resend: (runId: string) => resendCommand(options.state, runId),
  };
  const files: string[] = [];
  const tallies: {
    file: string;
    mapping: ResolvedMapping;
    counts: Record<SyncStatus, number>;
    entities: number;
    events: number;
  }[] = [];
  return {
    forSource(index, mapping, header, file) {
      files[index] = file;
      const keyer = createSyncKeyer(mapping, header);
      const tally = {
        file,
        mapping,
        counts: zeroCounts(),
        entities: 0,
        events: 0,
      };
      tallies.push(tally);
      // Occurrences (events, deal creates) have no entity key for a later row to win: no first reading.
      const needsFirstPass = !sendsOccurrences(mapping);
      const earlier = options.comparesWithEarlierFiles?.has(mapping.resource) === true ? earlierSends : undefined;
      const where = (place: RowPlace) =>
        place.source === index
          ? `line ${place.line}`
          : `${files[place.source] ?? `file ${place.source}`} line ${place.line}`;
      // The state as the live run's stage would see it: an entity key an earlier file of this run
      // sends holds that file's request. Returns, per row, the earlier send it was compared with.
      const seeEarlierFiles = (rowKeys: readonly SyncKey[], stored: (StoredEntry | undefined)[]) => {
        const seen = new Array<EarlierSend | undefined>(rowKeys.length);
        if (earlier === undefined) return seen;
        const at = rowKeys.flatMap((key, i) => (key.kind === 'entity' ? [i] : []));
        const found = earlier.find(
          mapping.resource,
          at.map((i) => rowKeys[i]!.key),
        );
        at.forEach((i, n) => {
          const send = found[n];
          if (send === undefined || send.source === index) return;
          seen[i] = send;
          stored[i] = { hash: send.hash, runId: '', at: '' };
        });
        return seen;
      };
      return {
        needsFirstPass,
        // Only the entity key matters here (the later row wins it): no request hash, which is the
        // costly part of a key and is computed once, when the row is classified.
        note: (row) => {
          const key = entityKeyOf(mapping.resource, mapping.operation, row.payload);
          if (key !== undefined)
            keys.noteEntity(
              { resource: mapping.resource, kind: 'entity', key, hash: '' },
              { source: index, line: row.line },
            );
        },
        classify: (rows, blocked) => {
          const rowKeys = rows.map(keyer);
          const stored = options.state?.lookupWithLegacy(rowKeys) ?? [];
          const seen = seeEarlierFiles(rowKeys, stored);
          // Which rows of this run share a key. An event the state holds is not sent, by whichever
          // row carries it (`already_sent`, or `unknown` while in doubt), not even by a full
          // refresh: only events that may be sent are checked against the run's other rows. Most
          // events of a nightly file are in the state, and a check is an insert into RunKeys.
          const asked: number[] = [];
          rowKeys.forEach((key, i) => {
            if (key.kind === 'entity' || (stored[i] === undefined && blocked?.[i] !== true)) asked.push(i);
          });
          const wins = new Array<RowPlace | undefined>(rows.length);
          const found = keys.winners(
            asked.map((i) => rowKeys[i]!),
            index,
            asked.map((i) => rows[i]!.line),
          );
          asked.forEach((i, n) => {
            wins[i] = found[n];
          });
          const sends: (EarlierSend & { key: string })[] = [];
          const out = rowKeys.map((key, i) => {
            const win = wins[i];
            const winner = win === undefined ? undefined : { where: where(win) };
            let c =
              legacyDoubt(key, stored[i], tallies, commands.forget) ??
              classifyRow(key, stored[i], winner, options.mode, commands);
            const before = seen[i];
            if (before !== undefined && c.status === 'unchanged' && !c.send)
              c = { ...c, message: `same request as ${where(before)}, sent earlier in this run` };
            // An occurrence an earlier file of the run sends: the live run's stage finds it in the
            // state by then (that file's accepted rows are applied first), so it is already sent.
            if (earlier !== undefined && win !== undefined && win.source !== index && c.status === 'superseded')
              c = {
                status: 'already_sent',
                send: false,
                message: `same ${key.resource} as ${where(win)}, sent earlier in this run`,
              };
            if (earlier !== undefined && c.send && key.kind === 'entity')
              sends.push({ key: key.key, hash: key.hash, source: index, line: rows[i]!.line });
            tally.counts[c.status]++;
            if (key.kind === 'entity') tally.entities++;
            else tally.events++;
            return { ...c, key };
          });
          earlier?.record(mapping.resource, sends);
          return out;
        },
        updates: (rows) => {
          const rowKeys = rows.map(keyer);
          const stored = options.state?.lookupWithLegacy(rowKeys) ?? [];
          seeEarlierFiles(rowKeys, stored);
          return rowKeys.filter((key, i) => {
            const c = classifyRow(key, stored[i], undefined, options.mode);
            return c.send && (c.status === 'changed' || c.status === 'unchanged');
          }).length;
        },
      };
    },
    notes() {
      const out: string[] = [];
      // The state keeps each mapping's fingerprint of a resource: a file whose own mapping is as
      // recorded is no mapping change, whatever became of the resource's other files. The deal
      // update method is part of every fingerprint, and runs may use either: a state recorded by
      // a run with the other one is no mapping change (as the live run's check has it).
      const mappings = tallies.map((t) => t.mapping);
      const methods = ['PATCH', 'PUT'].map((m) => ({ ...options.requestOptions, dealUpdateMethod: m }));
      for (const t of tallies) {
        const stored = options.state?.mappingFingerprint(t.mapping.resource);
        const own = mappingFingerprint(t.mapping, options.requestOptions);
        const held = stored !== undefined && methods.some((m) => mappingHeld(stored, t.mapping, mappings, m));
        const note = mappingChangeNote(
          t.file,
          t.entities >= t.events ? 'entity' : 'event',
          t.counts,
          held ? own : stored,
          own,
          knownByCells(t.mapping),
        );
        if (note !== undefined) out.push(note);
      }
      return out;
    },
    close: () => {
      keys.close();
      earlierSends?.close();
    },
  };
}

/**
 * A row found only under the key an earlier version wrote: that key did not say which mapping
 * sent it (identity cells without the event's name; a deal create kept as the deal's custom_id,
 * which an update_or_create writes too). With one mapping of the resource in the job it is this
 * row's, as before; with several it may be another mapping's row, so this one is in doubt:
 * `unknown`, not sent, never called sent.
 */
function legacyDoubt(
  key: SyncKey,
  stored: StoredEntry | undefined,
  tallies: readonly { readonly mapping: ResolvedMapping }[],
  forget: string,
): Classification | undefined {
  if (stored?.legacy !== true) return undefined;
  if (tallies.filter((t) => t.mapping.resource === key.resource).length <= 1) return undefined;
  return {
    status: 'unknown',
    send: false,
    message: `the sync state, written by an earlier engage-import, records a ${key.resource} with this row's ${key.resource === 'deal' ? 'custom_id' : 'identity cells'} (run ${stored.runId} at ${stored.at}) without saying which of the job's ${key.resource} mappings sent it: check the account; to send this row, ${forget} --resource ${key.resource} --key ${key.legacy?.().key ?? key.key}`,
  };
}

function zeroCounts(): Record<SyncStatus, number> {
  return Object.fromEntries(SYNC_STATUSES.map((s) => [s, 0])) as Record<SyncStatus, number>;
}

/**
 * A run without --incremental: every valid row is sent (`new`, sent), and each still carries its
 * sync key, so its `ok` outcome enters the state and the next incremental run skips it. The one
 * exception is an event the state holds in doubt (an earlier run lost its answer): it may have
 * been recorded, so it stays `unknown` and unsent here too, until `resume --resend-unknown`.
 */
export function createSendAllClassifier(state?: SyncState): RunClassifier {
  const commands = { forget: forgetCommand(state), resend: (runId: string) => resendCommand(state, runId) };
  return {
    forSource(_index, mapping, header) {
      const keyer = createSyncKeyer(mapping, header);
      return {
        needsFirstPass: false,
        note: () => undefined,
        classify: (rows) => {
          const keys = rows.map(keyer);
          // Only events can be in doubt: entity rows are not looked up.
          const events = keys.flatMap((key, i) => (key.kind === 'event' ? [i] : []));
          const stored =
            events.length > 0 && state !== undefined ? state.lookupWithLegacy(events.map((i) => keys[i]!)) : [];
          const doubts = new Map(events.map((at, n) => [at, stored[n]]));
          return keys.map((key, i) => {
            const held = doubts.get(i);
            return held?.runId.startsWith(DOUBT_PREFIX) === true
              ? { ...classifyRow(key, held, undefined, 'full-refresh', commands), key }
              : { status: 'new', send: true, key };
          });
        },
        // Without --incremental nothing is compared: every row is sent as it is.
        updates: () => 0,
      };
    },
    notes: () => [],
    close: () => undefined,
  };
}
