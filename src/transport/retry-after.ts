/**
 * How long a 429 asks to wait: the `retry-after` header (lowercase on this service;
 * `Headers` reads names case-insensitively), in seconds or as an HTTP date; else the seconds in
 * the detail `Request was throttled. Expected available in <n> second(s).`
 */
export interface ThrottleWait {
  readonly ms: number;
  readonly source: 'retry-after' | 'detail';
}

export function throttleWait(headers: Headers, bodyText: string, now: number): ThrottleWait | undefined {
  const header = headers.get('retry-after')?.trim();
  if (header !== undefined && header !== '') {
    if (/^\d+(\.\d+)?$/.test(header)) return { ms: Math.round(Number(header) * 1000), source: 'retry-after' };
    const date = Date.parse(header);
    if (!Number.isNaN(date)) return { ms: Math.max(0, date - now), source: 'retry-after' };
  }
  const match = /Expected available in (\d+(?:\.\d+)?) seconds?/i.exec(detailOf(bodyText));
  if (match?.[1] !== undefined) return { ms: Math.round(Number(match[1]) * 1000), source: 'detail' };
  return undefined;
}

function detailOf(text: string): string {
  try {
    const body = JSON.parse(text) as unknown;
    if (body !== null && typeof body === 'object' && 'detail' in body && typeof body.detail === 'string')
      return body.detail;
  } catch {
    // Not JSON: look at the raw text.
  }
  return text;
}
