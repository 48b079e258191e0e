import type { NetworkFailure } from './network-errors.js';

/** User-facing words for outcomes: what happened and what the tool did about it. */

export const UNAUTHORIZED = 'the API refused the credentials (401): check ENGAGE_API_KEY or --api-key-file';

export const NOT_RESENT =
  'the request may have been applied and was not resent to avoid a duplicate: check the account; if it is not there, resume --resend-unknown';

/** After a redirect: a resume goes on at the run's own base URL, which redirected, so it cannot resend this row. */
export const REDIRECT_IN_DOUBT =
  'the server read the request before it answered, so it may have been applied: check the account before sending this row again';

export function networkMessage(failure: NetworkFailure): string {
  return failure.kind === 'lost_answer'
    ? `no answer received (${failure.reason})`
    : `could not reach the API (${failure.reason}, ${failure.code})`;
}

export function redirectMessage(status: number, location: string | null, baseUrl: URL): string {
  let target = '';
  if (location !== null) {
    try {
      const url = new URL(location, baseUrl);
      target = ` to ${url.origin}${url.pathname}`;
    } catch {
      // An unparsable Location says nothing useful.
    }
  }
  return `the API answered ${status} (a redirect${target}); redirects are not followed, check the base URL (the API root, e.g. https://acme.example.com/api/public/)`;
}

export function tlsMessage(failure: NetworkFailure): string {
  return `could not connect to the API securely: ${failure.reason} (${failure.code})`;
}
