import { describe, expect, it } from 'vitest';
import { classifyNetworkError } from '../../src/transport/network-errors.js';

/** What undici's fetch throws: `TypeError('fetch failed')` with the socket error as its cause. */
function fetchFailed(code: string | undefined, message = 'boom'): TypeError {
  const cause = Object.assign(new Error(message), code === undefined ? {} : { code });
  return new TypeError('fetch failed', { cause });
}

describe('classifyNetworkError', () => {
  it.each([
    ['ECONNREFUSED', 'before_sent', 'connection refused'],
    ['ENOTFOUND', 'before_sent', 'host not found'],
    ['EAI_AGAIN', 'before_sent', 'DNS lookup failed'],
    ['UND_ERR_CONNECT_TIMEOUT', 'before_sent', 'timed out connecting'],
    ['UND_ERR_SOCKET', 'lost_answer', 'connection closed'],
    ['ECONNRESET', 'lost_answer', 'connection closed'],
    ['UND_ERR_HEADERS_TIMEOUT', 'lost_answer', 'timed out waiting for the answer'],
    ['UND_ERR_BODY_TIMEOUT', 'lost_answer', 'timed out reading the answer'],
    ['CERT_HAS_EXPIRED', 'tls', 'the certificate of the service was refused'],
    ['ERR_TLS_CERT_ALTNAME_INVALID', 'tls', 'the certificate of the service was refused'],
    [
      'ERR_SSL_WRONG_VERSION_NUMBER',
      'tls',
      'the service did not answer in TLS (is it http://, not https://, at that port?)',
    ],
  ])('fetch failed, cause %s → %s', (code, kind, reason) => {
    expect(classifyNetworkError(fetchFailed(code))).toEqual({ kind, code, reason });
  });

  it('reads the code on the error itself (nock replyWithError)', () => {
    expect(classifyNetworkError({ code: 'ECONNREFUSED', message: 'x' })).toEqual({
      kind: 'before_sent',
      code: 'ECONNREFUSED',
      reason: 'connection refused',
    });
  });

  it('"other side closed" without a known code is a lost answer', () => {
    expect(classifyNetworkError(fetchFailed(undefined, 'other side closed'))?.kind).toBe('lost_answer');
  });

  it('an unplaceable fetch failure is treated as a lost answer (the conservative side)', () => {
    expect(classifyNetworkError(fetchFailed('E_SOMETHING_NEW'))).toEqual({
      kind: 'lost_answer',
      code: 'E_SOMETHING_NEW',
      reason: 'connection failed',
    });
    expect(classifyNetworkError(new TypeError('fetch failed'))).toEqual({
      kind: 'lost_answer',
      code: 'unknown',
      reason: 'connection failed',
    });
  });

  it.each([
    ['an invalid header', new TypeError('Headers.append: "a\\nb" is an invalid header value.')],
    ['a programming error', new RangeError('Maximum call stack size exceeded')],
    ['a string', 'oops'],
    ['undefined', undefined],
  ])('%s is not a network failure (a bug, never retried)', (_name, error) => {
    expect(classifyNetworkError(error)).toBeUndefined();
  });
});
