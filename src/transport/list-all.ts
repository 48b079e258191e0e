import { HttpError } from '../errors.js';
import type { Transport } from './types.js';

/**
 * Every item of a paginated list (`{count, next, previous, results}`), page after
 * page, following `next` (a full URL) until it is null. `getJson` refuses a
 * `next` on another origin, so the API key stays with the service; a `next` already read
 * stops the walk instead of looping forever.
 */
export async function* listAll(
  transport: Pick<Transport, 'getJson'>,
  path: string,
): AsyncGenerator<unknown, void, undefined> {
  const seen = new Set<string>();
  let next: string | null = path;
  while (next !== null) {
    if (seen.has(next))
      throw new HttpError('HTTP_PROTOCOL', `the list ${path} links back to a page already read (${next}); stopped`);
    seen.add(next);
    const page = await transport.getJson(next);
    if (!isPage(page))
      throw new HttpError('HTTP_PROTOCOL', `the list ${path} did not answer a page ({count, next, previous, results})`);
    yield* page.results;
    next = page.next ?? null;
  }
}

interface Page {
  readonly results: readonly unknown[];
  readonly next?: string | null;
}

function isPage(body: unknown): body is Page {
  if (body === null || typeof body !== 'object' || !('results' in body) || !Array.isArray(body.results)) return false;
  const next = (body as { next?: unknown }).next;
  return next === undefined || next === null || typeof next === 'string';
}
