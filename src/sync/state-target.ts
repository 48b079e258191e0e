import { SyncError } from '../errors.js';
import { displayPath } from '../text/display-path.js';
import { guardState, type Db, type StatePlace } from './_state-db.js';

/** Where rows were sent: the base URL and a fingerprint of the API key (never the key). */
export interface StateTarget {
  readonly baseUrl: string;
  readonly keyFingerprint: string;
}

/** Which part of two targets differs (the base URL is named first), or undefined when they are the same. */
export function targetDifference(a: StateTarget, b: StateTarget): 'baseUrl' | 'keyFingerprint' | undefined {
  if (a.baseUrl !== b.baseUrl) return 'baseUrl';
  return a.keyFingerprint !== b.keyFingerprint ? 'keyFingerprint' : undefined;
}

/** The target the state recorded (`checkTarget`, `recordTarget`), if any. */
export function readTarget(db: Db, place: StatePlace): StateTarget | undefined {
  const stored = guardState(
    place,
    () => db.prepare(`SELECT value FROM meta WHERE key = 'target'`).pluck().get() as string | undefined,
  );
  return stored === undefined ? undefined : (JSON.parse(stored) as StateTarget);
}

/**
 * The account this state describes (base URL and API key fingerprint, as a run identity holds
 * them). The first run that writes the state records it; a run against another target is
 * refused (SYNC_STATE) before anything is sent: the other account has none of these rows, so
 * skipping them there as `unchanged` would be wrong. `record` stores it when none is.
 */
export function checkTarget(
  db: Db,
  place: StatePlace,
  target: StateTarget,
  record: boolean,
  /** `--key-rotated`: the operator says the new key is this account's; the state takes it. */
  keyRotated: boolean,
): void {
  const was = readTarget(db, place);
  if (was === undefined) {
    if (record) recordTarget(db, place, target);
    return;
  }
  const differs = targetDifference(was, target);
  if (differs === undefined) return;
  // A state that holds no row says nothing about its target's account: the run that recorded it
  // was stopped before the API accepted anything (a 401 on a mistyped key, a base URL that never
  // answered). The corrected target takes its place.
  if (holdsNoRow(db, place) || (differs === 'keyFingerprint' && keyRotated)) {
    if (record)
      guardState(place, () => db.prepare(`UPDATE meta SET value = ? WHERE key = 'target'`).run(stored(target)));
    return;
  }
  const why =
    differs === 'baseUrl' ? `the base URL ${was.baseUrl}, not ${target.baseUrl}` : 'another API key (another account?)';
  const rotated =
    differs === 'keyFingerprint'
      ? " If it is this account's key, rotated since, run again with --key-rotated: the state then keeps the new one."
      : '';
  throw new SyncError(
    'SYNC_STATE',
    `the sync state ${displayPath(place.file, place.cwd)} records what was sent with ${why}; nothing was sent.${rotated} Else use --state-dir with another folder for this target (its first run sends every row), or run against the target the state belongs to`,
  );
}

/** Records the state's target (base URL and key fingerprint only), when it has none yet. */
export function recordTarget(db: Db, place: StatePlace, target: StateTarget): void {
  guardState(place, () =>
    db.prepare(`INSERT INTO meta (key, value) VALUES ('target', ?) ON CONFLICT (key) DO NOTHING`).run(stored(target)),
  );
}

/** Only the two fields, whatever else the object carries. */
const stored = (target: StateTarget) =>
  JSON.stringify({ baseUrl: target.baseUrl, keyFingerprint: target.keyFingerprint });

function holdsNoRow(db: Db, place: StatePlace): boolean {
  return guardState(
    place,
    () =>
      db.prepare(`SELECT NOT EXISTS (SELECT 1 FROM entities) AND NOT EXISTS (SELECT 1 FROM events)`).pluck().get() ===
      1,
  );
}
