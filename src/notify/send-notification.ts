import { shownUrl } from './notify-url.js';

export type Delivery = { readonly ok: true; readonly status: number } | { readonly ok: false; readonly reason: string };

export interface SendOptions {
  /** Default: the global fetch. */
  readonly fetch?: typeof fetch;
  /** Give up after this long. Default 10 s: a nightly job must not hang on a dead webhook. */
  readonly timeoutMs?: number;
  /** Give up at once when this aborts (a signal while the alert waits for its webhook). */
  readonly stop?: AbortSignal | undefined;
}

/**
 * POST the notification once. Never throws: a webhook that is down is a warning for the log,
 * never a change of the run's exit code. The reason names the host only, never the full URL.
 */
export async function sendNotification(url: URL, body: unknown, options: SendOptions = {}): Promise<Delivery> {
  const doFetch = options.fetch ?? fetch;
  try {
    const response = await doFetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
      redirect: 'manual',
      signal: AbortSignal.any([
        AbortSignal.timeout(options.timeoutMs ?? 10_000),
        ...(options.stop === undefined ? [] : [options.stop]),
      ]),
    });
    // The body is not needed; reading it lets the connection be reused or closed.
    await response.arrayBuffer().catch(() => undefined);
    if (response.status >= 200 && response.status < 300) return { ok: true, status: response.status };
    return { ok: false, reason: `${shownUrl(url)} answered HTTP ${response.status}` };
  } catch (error) {
    const e = error as { name?: string; cause?: { code?: string } };
    const why =
      e.name === 'TimeoutError'
        ? 'no answer in time'
        : options.stop?.aborted === true
          ? 'interrupted while waiting for it'
          : (e.cause?.code ?? e.name ?? 'network error');
    return { ok: false, reason: `${shownUrl(url)} could not be reached (${why})` };
  }
}
