import type { CliIo } from './command.js';
import type { RunArgs } from './common-options.js';
import type { LiveArgs } from './live-options.js';
import { VERSION } from './version.js';

/**
 * The limits every request of a live command keeps, from its command line: the rate, the attempts,
 * the longest 429 pause, the timeout, the clock and the signal. The run's transport and the
 * `--key-rotated` check's are built from them alike.
 */
export function runLimits(
  args: Pick<LiveArgs, 'max-attempts' | 'max-pause' | 'request-timeout'> & Pick<RunArgs, 'rate'>,
  io: Pick<CliIo, 'clock' | 'signal'>,
) {
  return {
    rate: args.rate,
    maxAttempts: args['max-attempts'],
    maxPauseMs: args['max-pause'] * 1000,
    timeouts: { requestMs: args['request-timeout'] * 1000 },
    ...(io.clock && { now: io.clock.now, sleep: io.clock.sleep }),
    userAgent: `engage-import/${VERSION}`,
    signal: io.signal,
  };
}
