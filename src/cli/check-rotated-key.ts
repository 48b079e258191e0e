import { ConfigError, HttpError } from '../errors.js';
import { createTransport } from '../transport/index.js';
import type { CliIo } from './command.js';
import { VERSION } from './version.js';

/**
 * `--key-rotated` says the new key is this account's: before the run, its ledger or the sync state
 * takes it, one request (`GET events/`, the first page of the event definitions) shows that the
 * API accepts it. A key the API refuses (401), or that cannot be checked, is refused with nothing
 * changed: a mistyped key must not take the state away from the account's own, after which the
 * real key would be refused too.
 */
export async function checkRotatedKey(
  target: { readonly baseUrl: URL; readonly apiKey: string },
  options: { readonly requestTimeoutSeconds: number },
  io: Pick<CliIo, 'clock' | 'signal'>,
): Promise<void> {
  const transport = createTransport({
    baseUrl: target.baseUrl,
    apiKey: target.apiKey,
    concurrency: 1,
    timeouts: { requestMs: options.requestTimeoutSeconds * 1000 },
    ...(io.clock && { now: io.clock.now, sleep: io.clock.sleep }),
    userAgent: `engage-import/${VERSION}`,
    signal: io.signal,
  });
  try {
    await transport.getJson('events/');
  } catch (error) {
    const why =
      error instanceof HttpError && error.code === 'HTTP_UNAUTHORIZED'
        ? 'the API refuses it (401): check ENGAGE_API_KEY or --api-key-file'
        : `it could not be checked (${error instanceof Error ? error.message : String(error)})`;
    throw new ConfigError(
      'USAGE',
      `--key-rotated: the new API key was not taken, since ${why}; nothing was sent or changed`,
      { cause: error },
    );
  } finally {
    await transport.close();
  }
}
