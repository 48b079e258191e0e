import { shownUrl } from './notify-url.js';

export type Delivery = { readonly ok: true; readonly status: number } | { readonly ok: false; readonly reason: string };

/** How long an alert waits for its webhook: a nightly job must not hang on a dead one. */
export const ALERT_TIMEOUT_MS = 10_000;

export interface SendOptions {
  /** Default: the global fetch. */
  readonly fetch?: typeof fetch;
  /** Give up after this long. Default `ALERT_TIMEOUT_MS`. */
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
  // A timer of our own, not `AbortSignal.timeout` inside `AbortSignal.any`: Node 20 holds the
  // sources of `any` weakly, and a timeout signal collected by the GC never fires (a run then
  // waited on a silent webhook for good).
  const give = new AbortController();
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    give.abort();
  }, options.timeoutMs ?? ALERT_TIMEOUT_MS);
  const stop = () => give.abort();
  if (options.stop?.aborted === true) give.abort();
  options.stop?.addEventListener('abort', stop, { once: true });
  try {
    const response = await doFetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
      redirect: 'manual',
      signal: give.signal,
    });
    // The body is not needed; reading it lets the connection be reused or closed.
    await response.arrayBuffer().catch(() => undefined);
    if (response.status >= 200 && response.status < 300) return { ok: true, status: response.status };
    return { ok: false, reason: `${shownUrl(url)} answered HTTP ${response.status}` };
  } catch (error) {
    const e = error as { name?: string; cause?: { code?: string } };
    const why = timedOut
      ? 'no answer in time'
      : options.stop?.aborted === true
        ? 'interrupted while waiting for it'
        : (e.cause?.code ?? e.name ?? 'network error');
    return { ok: false, reason: `${shownUrl(url)} could not be reached (${why})` };
  } finally {
    clearTimeout(timer);
    options.stop?.removeEventListener('abort', stop);
  }
}
