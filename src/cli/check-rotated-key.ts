import { setTimeout as delay } from 'node:timers/promises';
import { ConfigError, HttpError } from '../errors.js';
import { createTransport } from '../transport/index.js';
import type { CliIo } from './command.js';
import { runLimits } from './run-limits.js';
import { InterruptedWhileWaiting } from './take-state-lock.js';

/**
 * `--key-rotated` says the new key is this account's: before the run, its ledger or the sync state
 * takes it, one request (`GET events/`, the first page of the event definitions) shows that the
 * API accepts it, with the run's own limits (rate, attempts, longest pause, timeout). A key the
 * API refuses (401) is refused (exit 2) with nothing changed: a mistyped key must not take the
 * state away from the account's own, after which the real key would be refused too. An API that
 * cannot answer stops the command as it would stop the run (exit 3), and a signal interrupts it.
 */
export async function checkRotatedKey(
  target: { readonly baseUrl: URL; readonly apiKey: string },
  args: Parameters<typeof runLimits>[0],
  io: Pick<CliIo, 'clock' | 'signal'>,
): Promise<void> {
  const transport = createTransport({
    baseUrl: target.baseUrl,
    apiKey: target.apiKey,
    concurrency: 1,
    ...runLimits(args, io),
  });
  const interrupted = () => new InterruptedWhileWaiting(String(io.signal.reason ?? 'SIGINT'), 'the new API key');
  try {
    await transport.getJson('events/');
  } catch (error) {
    if (io.signal.aborted) throw interrupted();
    if (error instanceof HttpError && error.code === 'HTTP_UNAUTHORIZED')
      throw new ConfigError(
        'USAGE',
        '--key-rotated: the API refuses the new key (401): check ENGAGE_API_KEY or --api-key-file; nothing was sent or changed',
        { cause: error },
      );
    const why = error instanceof Error ? error.message : String(error);
    throw new HttpError(
      'NETWORK',
      `--key-rotated: the new API key could not be checked (${why}); nothing was sent or changed: run again once the API answers`,
      undefined,
      { cause: error },
    );
  } finally {
    await transport.close();
  }
  // The run's own requests start a second later: the check must not make its first second one too many.
  const sleep = io.clock?.sleep ?? ((ms: number, signal?: AbortSignal) => delay(ms, undefined, { signal }));
  try {
    await sleep(1000, io.signal);
  } catch (error) {
    if (!io.signal.aborted) throw error;
  }
  if (io.signal.aborted) throw interrupted();
}
