import { setTimeout as delay } from 'node:timers/promises';
import { acquireLock, waitForFreeLock, type StateLock } from '../ledger/index.js';
import { LedgerError } from '../errors.js';
import { displayPath } from '../text/display-path.js';
import type { CliIo } from './command.js';

/** The lock wait's clock when the caller injects none. */
const REAL_CLOCK = {
  now: Date.now,
  sleep: (ms: number, signal?: AbortSignal) => delay(ms, undefined, signal ? { signal } : {}),
};

/** The lock a command took before its run's ledger took it over (then undefined). */
export interface TakenLock {
  lock?: StateLock | undefined;
}

/** A signal while the run waited, before anything started: for the state directory's lock, or a check. */
export class InterruptedWhileWaiting extends Error {
  constructor(
    readonly signal: string,
    /** What it waited for, as the message says it. */
    readonly waitingFor = 'the state directory',
  ) {
    super(`interrupted by ${signal}`);
  }
}

/**
 * Takes the state directory's lock, waiting up to --lock-wait (`lockWaitSeconds`) for another process to let go of
 * it (refused, naming the holder, when it does not). A cron run that meets a preview or a state
 * command holding it for a moment goes on instead of failing the night. Taken, not only waited
 * for: the checks that follow (an unfinished run, the sync state) hold only while no one else can
 * start a run or change the state.
 */
export async function takeStateLock(
  dir: string,
  io: Pick<CliIo, 'clock' | 'signal' | 'stderr' | 'cwd'>,
  options: { readonly lockWaitSeconds: number; readonly quiet: boolean | undefined },
): Promise<StateLock> {
  const clock = io.clock ?? REAL_CLOCK;
  const until = clock.now() + options.lockWaitSeconds * 1000;
  let told = false;
  for (;;) {
    const free = await waitForFreeLock(dir, {
      ms: Math.max(0, until - clock.now()),
      now: clock.now,
      sleep: clock.sleep,
      signal: io.signal,
      onWait: (holder) => {
        if (!options.quiet && !told)
          io.stderr.write(
            `engage-import: waiting up to ${options.lockWaitSeconds} s for ${displayPath(dir, io.cwd)}, in use by another engage-import process (pid ${holder.pid} on host ${holder.hostname}, since ${holder.startedAt})\n`,
          );
        told = true;
      },
    });
    // Interrupted while waiting: nothing was sent, and the exit code says which signal.
    if (!free && io.signal.aborted) throw new InterruptedWhileWaiting(String(io.signal.reason ?? 'SIGINT'));
    try {
      return acquireLock(dir, { cwd: io.cwd });
    } catch (error) {
      // Taken by another process between the wait and this: wait again while time is left.
      // Still held at the end: refused now, naming the holder.
      const lost = error instanceof LedgerError && error.code === 'STATE_LOCKED';
      if (!free || !lost || clock.now() >= until) throw error;
    }
  }
}
