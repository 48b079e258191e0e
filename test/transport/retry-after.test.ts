import { describe, expect, it } from 'vitest';
import { throttleWait } from '../../src/transport/retry-after.js';

const throttled = (n: string) => JSON.stringify({ detail: `Request was throttled. Expected available in ${n}.` });

describe('throttleWait (R-RATE-2)', () => {
  it.each([
    ['retry-after in seconds', { 'retry-after': '2' }, '', { ms: 2000, source: 'retry-after' }],
    ['Retry-After in another case', { 'Retry-After': '3' }, '', { ms: 3000, source: 'retry-after' }],
    ['fractional seconds', { 'retry-after': '0.5' }, '', { ms: 500, source: 'retry-after' }],
    ['an HTTP date', { 'retry-after': 'Thu, 01 Jan 1970 00:00:05 GMT' }, '', { ms: 4000, source: 'retry-after' }],
    [
      'the header wins over the detail',
      { 'retry-after': '2' },
      throttled('9 seconds'),
      { ms: 2000, source: 'retry-after' },
    ],
    ['no header: the detail, plural', {}, throttled('7 seconds'), { ms: 7000, source: 'detail' }],
    ['no header: the detail, singular', {}, throttled('1 second'), { ms: 1000, source: 'detail' }],
    [
      'an unreadable header falls back to the detail',
      { 'retry-after': 'soon' },
      throttled('4 seconds'),
      { ms: 4000, source: 'detail' },
    ],
    ['nothing to go by', {}, '{"detail":"Request was throttled."}', undefined],
  ])('%s', (_name, headers, body, expected) => {
    expect(throttleWait(new Headers(headers), body, 1000)).toEqual(expected);
  });
});
