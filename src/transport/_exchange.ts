import { classifyNetworkError, type NetworkFailure } from './network-errors.js';

/** One HTTP round trip, reduced to what the retry logic needs. */
export type Exchange =
  | {
      readonly type: 'response';
      readonly status: number;
      readonly headers: Headers;
      /** The body text; empty when it could not be read (see `bodyLost`). */
      readonly text: string;
      /** Set when the status arrived but the body broke off (a body timeout, a reset). */
      readonly bodyLost: NetworkFailure | undefined;
    }
  | { readonly type: 'network'; readonly failure: NetworkFailure };

/**
 * `fetch` and read the whole body. Network failures are returned, classified; anything else
 * `fetch` throws is a bug and is rethrown as it is (an unknown error is never retried).
 */
export async function exchange(fetchFn: typeof fetch, url: URL, init: RequestInit): Promise<Exchange> {
  let response: Response;
  try {
    response = await fetchFn(url, init);
  } catch (error) {
    const failure = classifyNetworkError(error);
    if (failure === undefined) throw error;
    return { type: 'network', failure };
  }
  let text = '';
  let bodyLost: NetworkFailure | undefined;
  try {
    text = await response.text();
  } catch (error) {
    bodyLost = classifyNetworkError(error);
    if (bodyLost === undefined) throw error;
  }
  return { type: 'response', status: response.status, headers: response.headers, text, bodyLost };
}
