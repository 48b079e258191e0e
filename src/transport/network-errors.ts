/**
 * Where a failed `fetch` broke, which decides whether it may be sent again (a lost answer is not a failure):
 * - `before_sent`: the connection was never made, so nothing reached the service; safe to
 *   resend for any operation.
 * - `lost_answer`: the connection broke or timed out after the request was (or may have been)
 *   written; the service may have applied it.
 * - `tls`: the service's certificate was refused; nothing was sent, and resending cannot help.
 * Anything else thrown by `fetch` is not a network failure but a bug (an invalid header, a body
 * that cannot be serialised): it is never retried, and `classifyNetworkError` returns undefined.
 */
export type NetworkFailureKind = 'before_sent' | 'lost_answer' | 'tls';

export interface NetworkFailure {
  readonly kind: NetworkFailureKind;
  /** The error code found (`ECONNREFUSED`, `UND_ERR_SOCKET`, …), or `unknown`. */
  readonly code: string;
  /** Short, user-facing words for what happened: no host names, headers or secrets. */
  readonly reason: string;
}

/** The connection was never established (undici wraps these as `fetch failed` with a cause). */
const BEFORE_SENT: Readonly<Record<string, string>> = {
  ECONNREFUSED: 'connection refused',
  ENOTFOUND: 'host not found',
  EAI_AGAIN: 'DNS lookup failed',
  UND_ERR_CONNECT_TIMEOUT: 'timed out connecting',
  ENETUNREACH: 'network unreachable',
  EHOSTUNREACH: 'host unreachable',
  EADDRNOTAVAIL: 'address not available',
};

/** The connection broke once the request was on its way: the answer is lost, not the request. */
const LOST_ANSWER: Readonly<Record<string, string>> = {
  UND_ERR_SOCKET: 'connection closed',
  ECONNRESET: 'connection closed',
  EPIPE: 'connection closed',
  ECONNABORTED: 'connection closed',
  ETIMEDOUT: 'connection timed out',
  UND_ERR_HEADERS_TIMEOUT: 'timed out waiting for the answer',
  UND_ERR_BODY_TIMEOUT: 'timed out reading the answer',
  UND_ERR_ABORTED: 'request aborted',
};

const TLS_CODE =
  /^(ERR_TLS_|ERR_SSL_|CERT_|UNABLE_TO_|DEPTH_ZERO_SELF_SIGNED_CERT|SELF_SIGNED_CERT_IN_CHAIN|HOSTNAME_MISMATCH)/;

export function classifyNetworkError(error: unknown): NetworkFailure | undefined {
  const chain = causeChain(error);
  const codes = chain.map((e) => e.code).filter((c): c is string => typeof c === 'string');
  for (const code of codes) {
    const reason = BEFORE_SENT[code];
    if (reason !== undefined) return { kind: 'before_sent', code, reason };
  }
  for (const code of codes) {
    const reason = LOST_ANSWER[code];
    if (reason !== undefined) return { kind: 'lost_answer', code, reason };
  }
  // fetch refuses some ports outright ("bad port": 6000, 6666, 10080, ...): nothing left.
  if (chain.some((e) => e.message === 'bad port'))
    return { kind: 'before_sent', code: 'BAD_PORT', reason: 'fetch refuses to use this port' };
  const tls = codes.find((c) => TLS_CODE.test(c));
  if (tls !== undefined)
    return {
      kind: 'tls',
      code: tls,
      // A plain-HTTP server on the other end answers a TLS hello with text: no certificate at all.
      reason: /WRONG_VERSION_NUMBER|HTTP_REQUEST/i.test(tls)
        ? 'the service did not answer in TLS (is it http://, not https://, at that port?)'
        : 'the certificate of the service was refused',
    };
  if (chain.some((e) => typeof e.message === 'string' && /other side closed/i.test(e.message))) {
    return { kind: 'lost_answer', code: codes[0] ?? 'UND_ERR_SOCKET', reason: 'connection closed' };
  }
  // `fetch failed` (or any coded error) we cannot place: it may have happened after the request
  // left, so it is treated as a lost answer, the conservative side for a non-idempotent request.
  const fetchFailed = chain[0] instanceof TypeError && chain[0].message === 'fetch failed';
  if (fetchFailed || codes.length > 0)
    return { kind: 'lost_answer', code: codes[0] ?? 'unknown', reason: 'connection failed' };
  return undefined;
}

interface ErrorLike {
  readonly code?: unknown;
  readonly message?: unknown;
}

/** The error and its causes (undici: `TypeError('fetch failed')` → `cause` → socket error). */
function causeChain(error: unknown): ErrorLike[] {
  const chain: ErrorLike[] = [];
  let current: unknown = error;
  while (current !== null && typeof current === 'object' && chain.length < 5 && !chain.includes(current)) {
    chain.push(current);
    current = (current as { cause?: unknown }).cause;
  }
  return chain;
}
