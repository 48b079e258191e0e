import { makeFolders } from '../report/make-folders.js';
import { randomBytes } from 'node:crypto';
import { closeSync, fsyncSync, linkSync, openSync, readFileSync, renameSync, unlinkSync, writeSync } from 'node:fs';
import { hostname as osHostname, uptime } from 'node:os';
import { join } from 'node:path';
import { LedgerError } from '../errors.js';
import { displayPath } from '../text/display-path.js';

/** Who holds a state directory: enough to tell whether that process still exists. */
export interface LockOwner {
  readonly pid: number;
  readonly hostname: string;
  /** ISO 8601 time the lock was taken. */
  readonly startedAt: string;
}

export interface LockOptions {
  /** The pid written into the lock. Default `process.pid`. */
  readonly pid?: number;
  /** The host written into the lock and compared with the holder's. Default `os.hostname()`. */
  readonly hostname?: string;
  /** Clock for `startedAt`. Default `() => new Date()`. */
  readonly now?: () => Date;
  /** Whether a pid on this host is running. Default: `process.kill(pid, 0)` succeeds or fails with EPERM. */
  readonly isAlive?: (pid: number) => boolean;
  /** When this host booted, in ms since the epoch. Default `Date.now() - os.uptime() * 1000`. */
  readonly bootTime?: () => number;
  /** Paths in messages are shown relative to it. Default `process.cwd()`. */
  readonly cwd?: string;
}

export interface StateLock {
  /** The lock file: `<state-dir>/lock`. */
  readonly path: string;
  readonly owner: LockOwner;
  /** Set when the lock was left by a process that is gone (SIGKILL, OOM, reboot) and was taken over. */
  readonly takenOverFrom: LockOwner | undefined;
  /** Removes the lock file if it is still this one. Safe to call twice. */
  release(): void;
}

interface LockFile extends LockOwner {
  /** Tells this lock from another with the same pid (a test, or a pid reused after a reboot). */
  readonly token: string;
}

/** A lock older than the boot by more than this is from before the reboot, whatever its pid. */
const BOOT_SLACK_MS = 5_000;

/**
 * Takes the lock of a whole state directory, so that two runs never interleave their ledgers.
 * The file appears atomically with its content (written aside, then hard-linked into place), so
 * a reader never sees a half-written lock. A lock whose holder is not alive on this host, or was
 * taken before this host booted, is taken over; one held by a live process, or by another host
 * (whose processes cannot be checked from here), is refused with LedgerError STATE_LOCKED.
 */
export function acquireLock(stateDir: string, options: LockOptions = {}): StateLock {
  const path = join(stateDir, 'lock');
  const cwd = options.cwd ?? process.cwd();
  const host = options.hostname ?? osHostname();
  const isAlive = options.isAlive ?? pidIsAlive;
  const bootTime = options.bootTime ?? (() => Date.now() - uptime() * 1000);
  const mine: LockFile = {
    pid: options.pid ?? process.pid,
    hostname: host,
    startedAt: (options.now ?? (() => new Date()))().toISOString(),
    token: randomBytes(8).toString('hex'),
  };
  makeFolders(stateDir);

  let takenOverFrom: LockOwner | undefined;
  // A few rounds: each lost race (another process taking over the same stale lock) costs one.
  for (let round = 0; round < 5; round++) {
    if (tryCreate(path, mine)) return held(path, mine, takenOverFrom);
    const raw = readOrUndefined(path);
    if (raw === undefined) continue; // released between our attempt and the read
    const holder = parseLock(raw);
    if (holder === undefined) {
      throw new LedgerError(
        'STATE_LOCKED',
        `the state directory ${displayPath(stateDir, cwd)} has a lock file that cannot be read (${displayPath(path, cwd)}); if no engage-import run is using this directory, delete that file`,
      );
    }
    if (!isStale(holder, host, isAlive, bootTime))
      throw lockedError(stateDir, path, holder, holder.hostname === host, cwd);
    // Move the stale lock aside and check it is the one we judged: another process may have
    // taken it over in the meantime, and its fresh lock must not be thrown away.
    const aside = `${path}.stale-${mine.token}`;
    try {
      renameSync(path, aside);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') continue;
      throw error;
    }
    if (readOrUndefined(aside) !== raw) {
      try {
        linkSync(aside, path);
      } catch {
        // Someone holds the lock already; theirs stays, ours is refused on the next round.
      }
      unlinkSync(aside);
      continue;
    }
    unlinkSync(aside);
    takenOverFrom = { pid: holder.pid, hostname: holder.hostname, startedAt: holder.startedAt };
  }
  throw new LedgerError(
    'STATE_LOCKED',
    `could not take the lock ${displayPath(path, cwd)}: other processes keep taking it; try again`,
  );
}

/** How long `waitForFreeLock` waits, and its clock (tests: virtual time). */
export interface LockWait {
  /** Longest wait for a lock held by a live process, in ms; 0: do not wait. */
  readonly ms: number;
  readonly now: () => number;
  readonly sleep: (ms: number, signal?: AbortSignal) => Promise<void>;
  /** Stops the wait early (Ctrl-C, SIGTERM). */
  readonly signal?: AbortSignal;
  /** Told once, when the wait starts: who holds the lock. */
  readonly onWait?: (holder: LockOwner) => void;
}

/** Between two looks at a held lock: short, since a preview or a state command holds it a moment. */
const LOCK_POLL_MS = 250;

/**
 * Waits until the state directory's lock is free (no lock file, or one left by a process that is
 * gone) or `wait.ms` has passed, without taking it: the caller then takes it as usual, which
 * refuses with the holder's name when the wait ran out. An unattended run that starts while a
 * preview or a state command holds the lock for a moment waits for it instead of failing the night.
 * Answers whether the lock was seen free.
 */
export async function waitForFreeLock(stateDir: string, wait: LockWait, options: LockOptions = {}): Promise<boolean> {
  const path = join(stateDir, 'lock');
  const host = options.hostname ?? osHostname();
  const isAlive = options.isAlive ?? pidIsAlive;
  const bootTime = options.bootTime ?? (() => Date.now() - uptime() * 1000);
  const until = wait.now() + wait.ms;
  let told = false;
  for (;;) {
    const holder = liveHolder(path, host, isAlive, bootTime);
    if (holder === undefined) return true;
    // An unreadable lock does not free itself: taking it says what to do.
    if (holder === 'unreadable') return false;
    const left = until - wait.now();
    if (left <= 0 || wait.signal?.aborted === true) return false;
    if (!told) {
      told = true;
      wait.onWait?.({ pid: holder.pid, hostname: holder.hostname, startedAt: holder.startedAt });
    }
    try {
      await wait.sleep(Math.min(LOCK_POLL_MS, left), wait.signal);
    } catch {
      // An injected sleep may reject on abort; the loop sees the signal.
    }
  }
}

/**
 * The live process holding the state directory's lock now (`unreadable` when the lock cannot be
 * read, which counts as held), or undefined when it is free; read without taking it: a preview
 * asks whether a run may be in progress, and writes nothing.
 */
export function liveLockHolder(stateDir: string, options: LockOptions = {}): LockOwner | 'unreadable' | undefined {
  const host = options.hostname ?? osHostname();
  const isAlive = options.isAlive ?? pidIsAlive;
  const bootTime = options.bootTime ?? (() => Date.now() - uptime() * 1000);
  return liveHolder(join(stateDir, 'lock'), host, isAlive, bootTime);
}

/** The lock's holder when it is alive, `unreadable`, or undefined when the lock is free (none, or stale). */
function liveHolder(
  path: string,
  host: string,
  isAlive: (pid: number) => boolean,
  bootTime: () => number,
): LockOwner | 'unreadable' | undefined {
  const raw = readOrUndefined(path);
  if (raw === undefined) return undefined;
  const holder = parseLock(raw);
  if (holder === undefined) return 'unreadable';
  return isStale(holder, host, isAlive, bootTime) ? undefined : holder;
}

/** A lock left on this host by a process that is no longer running, or taken before this host booted. */
function isStale(holder: LockOwner, host: string, isAlive: (pid: number) => boolean, bootTime: () => number): boolean {
  return (
    holder.hostname === host && (Date.parse(holder.startedAt) + BOOT_SLACK_MS < bootTime() || !isAlive(holder.pid))
  );
}

function held(path: string, mine: LockFile, takenOverFrom: LockOwner | undefined): StateLock {
  let released = false;
  const release = () => {
    if (released) return;
    released = true;
    process.removeListener('exit', release);
    // Only our own lock: after a takeover by someone else, theirs must stay.
    if (readOrUndefined(path) === serialise(mine)) unlinkSync(path);
  };
  // A run that ends through process.exit() without close() still frees its directory.
  process.once('exit', release);
  return { path, owner: { pid: mine.pid, hostname: mine.hostname, startedAt: mine.startedAt }, takenOverFrom, release };
}

function tryCreate(path: string, lock: LockFile): boolean {
  const tmp = `${path}.${lock.token}.tmp`;
  const fd = openSync(tmp, 'wx');
  try {
    writeSync(fd, serialise(lock));
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  try {
    linkSync(tmp, path);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw error;
  } finally {
    unlinkSync(tmp);
  }
}

const serialise = (lock: LockFile) => `${JSON.stringify(lock)}\n`;

function readOrUndefined(path: string): string | undefined {
  try {
    return readFileSync(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}

function parseLock(raw: string): LockFile | undefined {
  try {
    const v = JSON.parse(raw) as Partial<LockFile>;
    // A pid of 0 or below would address a process group in kill(); never trust one.
    if (!Number.isSafeInteger(v.pid) || (v.pid as number) <= 0) return undefined;
    if (typeof v.hostname !== 'string' || typeof v.startedAt !== 'string' || Number.isNaN(Date.parse(v.startedAt)))
      return undefined;
    return { pid: v.pid as number, hostname: v.hostname, startedAt: v.startedAt, token: String(v.token) };
  } catch {
    return undefined;
  }
}

function pidIsAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it exists but belongs to another user.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function lockedError(stateDir: string, path: string, holder: LockOwner, sameHost: boolean, cwd: string): LedgerError {
  const who = `pid ${holder.pid} on host ${holder.hostname}, since ${holder.startedAt}`;
  const advice = sameHost
    ? 'Wait for it to finish (two runs at once would interleave their ledgers); if that pid is no longer an engage-import run, delete the lock file'
    : 'Its state cannot be checked from this host; if no run is going on there, delete the lock file';
  return new LedgerError(
    'STATE_LOCKED',
    `the state directory ${displayPath(stateDir, cwd)} is in use by another engage-import run (${who}; lock file ${displayPath(path, cwd)}). ${advice}.`,
  );
}
