import { DOUBT_PREFIX } from './_state-db.js';
import type { StoredEntry } from './sync-state.js';
import type { SyncKey } from './sync-key.js';

/**
 * What an incremental run does with a valid row:
 * - `new`: the state has never seen its key (entity) or identity (event): sent.
 * - `changed`: an entity whose request differs from the one last accepted: sent.
 * - `unchanged`: an entity whose request equals the one last accepted: not sent.
 * - `already_sent`: an event whose identity was accepted before: not sent (events are not idempotent),
 *   not even by a full refresh.
 * - `superseded`: another row of this run carries the same entity key (the later row wins, as it
 *   would on the API) or the same event identity (the first row is sent once): not sent.
 */
export const SYNC_STATUSES = ['new', 'changed', 'unchanged', 'already_sent', 'superseded', 'unknown'] as const;
export type SyncStatus = (typeof SYNC_STATUSES)[number];

/**
 * `incremental` sends only new and changed rows; `full-refresh` sends every entity row again and
 * refreshes the state, but never an event (or deal create) the state holds: it would be recorded twice.
 */
export type SyncMode = 'incremental' | 'full-refresh';

export interface Classification {
  readonly status: SyncStatus;
  /** Whether the live run sends the row. */
  readonly send: boolean;
  /** Why a row is not sent, for the report. */
  readonly message?: string;
}

/** The row of this run that wins a duplicated key, as the report names it (`contacts.csv line 14`). */
export interface Winner {
  readonly where: string;
}

/**
 * The pure rule for one valid row: its sync key, what the state holds for it, and the row of
 * this run that wins its key when that is another row. Superseded rows are never sent, even on a
 * full refresh: the API would end with the winner's values either way.
 */
/** How a message names the commands that reach the job's state and its runs. */
export interface StateCommands {
  readonly forget: string;
  readonly resend: (runId: string) => string;
}

export function classifyRow(
  row: SyncKey,
  stored: StoredEntry | undefined,
  winner: Winner | undefined,
  mode: SyncMode,
  /** The commands that reach this job's state and runs (`forgetCommand`, `resendCommand`), for the message of a row in doubt. */
  commands: StateCommands = {
    forget: 'engage-import state forget',
    resend: (runId) => `engage-import resume --resend-unknown on run ${runId}'s folder`,
  },
): Classification {
  if (winner !== undefined) {
    const message =
      row.kind === 'entity'
        ? `superseded by ${winner.where}, which has the same ${row.key}: the later row of a key wins, and its line says how it went`
        : `same ${row.resource === 'deal' ? 'deal create' : 'event'} as ${winner.where}, which is sent once for both: its line says how that went`;
    return { status: 'superseded', send: false, message };
  }
  const refresh = mode === 'full-refresh';
  if (stored === undefined) return { status: 'new', send: true };
  if (row.kind === 'event' && stored.runId.startsWith(DOUBT_PREFIX)) {
    // Never resent silently, not even by a full refresh: the earlier send may have been recorded.
    const run = stored.runId.slice(DOUBT_PREFIX.length);
    return {
      status: 'unknown',
      send: false,
      message: `in doubt since run ${run} at ${stored.at} (a 5xx, a lost answer, or the run stopped while it was in flight): it may have been recorded; check the account, then ${commands.resend(run)}, or, when its file has changed since, send it again with the next run after: ${commands.forget} --resource ${row.resource} --key ${row.key}`,
    };
  }
  const when = `run ${stored.runId} at ${stored.at}`;
  if (row.kind === 'event') {
    // A deal create makes a new deal each time: the deal it made is changed through update_or_create.
    const hint =
      row.resource === 'deal'
        ? '; a create makes a new deal each time it is sent, so changes to that deal need operation update_or_create'
        : '';
    // Not even a full refresh sends it again: that would record it twice. Sending it again is a
    // deliberate second step, `state forget` first.
    return {
      status: 'already_sent',
      send: false,
      message: `accepted by ${when}${hint}${refresh ? `; a full refresh does not send an ${row.resource === 'deal' ? 'occurrence' : 'event'} again (it would be recorded twice): state forget it first to do that` : ''}`,
    };
  }
  if (stored.hash !== row.hash) return { status: 'changed', send: true };
  return refresh
    ? { status: 'unchanged', send: true, message: `same request as accepted by ${when}; sent again (a full refresh)` }
    : { status: 'unchanged', send: false, message: `same request as accepted by ${when}` };
}

/** Whether more than half of the rows compared with the state differ from it (none compared: no). */
const mostlyDiffer = (differing: number, compared: number): boolean => compared > 0 && differing * 2 > compared;

/**
 * Whether an event file whose mapping changed looks like old events sent again. Known by their
 * exact request, any event may be an old one: a field only some rows fill changes those rows
 * alone. Known by `identity:` cells, a change reaches them only through the event's name, which
 * every row shares: most would look new, and one new event is just new.
 */
export const eventsLookResent = (fresh: number, compared: number, byIdentity: boolean): boolean =>
  byIdentity ? mostlyDiffer(fresh, compared) : fresh > 0;

/** Statuses counted per file, for the note below. */
export type SyncCounts = Readonly<Record<SyncStatus, number>>;

/**
 * When rows of a file differ from the state and its mapping is not the one the state was built
 * with, the requests may have changed because of the mapping, not the data: say so, since every
 * such row will be sent (and, for events, recorded again). Entities: when most rows changed;
 * events: when any looks new. Undefined otherwise.
 */
export function mappingChangeNote(
  file: string,
  kind: 'entity' | 'event',
  counts: SyncCounts,
  stored: string | undefined,
  current: string,
  byIdentity = false,
): string | undefined {
  if (stored === undefined || stored === current) return undefined;
  const differing = kind === 'entity' ? counts.changed : counts.new;
  const compared = kind === 'entity' ? counts.changed + counts.unchanged : counts.new + counts.already_sent;
  // An entity sent again does no harm: said when most rows changed. An event sent again is
  // recorded twice: said (and refused by the live run) as `eventsLookResent` has it.
  if (kind === 'entity' ? !mostlyDiffer(differing, compared) : !eventsLookResent(differing, compared, byIdentity))
    return undefined;
  const n = new Intl.NumberFormat('en-US');
  const share = `${n.format(differing)} of ${n.format(compared)}`;
  return kind === 'entity'
    ? `${file}: most rows changed (${share}) and its mapping changed since the state was recorded: the requests differ because of the mapping, not the data`
    : `${file}: ${share} events look new and its mapping changed since the state was recorded: their requests may differ because of the mapping, so sending them could record old events again; a live incremental run refuses this file unless --accept-mapping-change (put the mapping's earlier form back, or accept if these events are new or the file is new to the job)`;
}
