import nock from 'nock';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { HttpError } from '../../src/errors.js';
import { createTransport } from '../../src/transport/create-transport.js';
import { listAll } from '../../src/transport/list-all.js';
import type { Transport } from '../../src/transport/types.js';
import { fakeClock } from './_fake-clock.js';

const ORIGIN = 'https://acme.example.com';
const BASE = new URL(`${ORIGIN}/api/public/`);
let transport: Transport;

beforeAll(() => nock.disableNetConnect());
afterAll(() => nock.enableNetConnect());
afterEach(async () => {
  await transport.close();
  nock.cleanAll();
});

function make(): Transport {
  const clock = fakeClock();
  transport = createTransport({
    baseUrl: BASE,
    apiKey: 'k'.repeat(64),
    now: clock.now,
    sleep: clock.sleep,
    random: () => 0,
  });
  return transport;
}

async function collect(iterable: AsyncIterable<unknown>): Promise<unknown[]> {
  const items: unknown[] = [];
  for await (const item of iterable) items.push(item);
  return items;
}

const page = (results: unknown[], next: string | null, previous: string | null = null) => ({
  count: 5,
  next,
  previous,
  results,
});

describe('listAll (R-EVENT-6: follow next until null)', () => {
  it('walks every page, in order', async () => {
    const scope = nock(ORIGIN)
      .get('/api/public/events/')
      .reply(
        200,
        page(
          [
            { id: 1, name: 'a' },
            { id: 2, name: 'b' },
          ],
          `${ORIGIN}/api/public/events/?page=2`,
        ),
      )
      .get('/api/public/events/')
      .query({ page: '2' })
      .reply(
        200,
        page(
          [
            { id: 3, name: 'c' },
            { id: 4, name: 'd' },
          ],
          `${ORIGIN}/api/public/events/?page=3`,
          `${ORIGIN}/api/public/events/`,
        ),
      )
      .get('/api/public/events/')
      .query({ page: '3' })
      .reply(200, page([{ id: 5, name: 'e' }], null, `${ORIGIN}/api/public/events/?page=2`));
    const items = await collect(listAll(make(), 'events/'));
    expect(items.map((e) => (e as { id: number }).id)).toEqual([1, 2, 3, 4, 5]);
    expect(scope.isDone()).toBe(true);
    expect(transport.stats().requests).toBe(3);
  });

  it('reads one page when next is null, and an empty list', async () => {
    nock(ORIGIN).get('/api/public/events/').reply(200, page([], null));
    expect(await collect(listAll(make(), 'events/'))).toEqual([]);
  });

  it('retries a page after a 503 like any idempotent request', async () => {
    nock(ORIGIN)
      .get('/api/public/events/')
      .reply(503)
      .get('/api/public/events/')
      .reply(200, page([{ id: 1 }], null));
    expect(await collect(listAll(make(), 'events/'))).toEqual([{ id: 1 }]);
  });

  it('refuses a next on another origin without sending anything there', async () => {
    nock(ORIGIN)
      .get('/api/public/events/')
      .reply(200, page([{ id: 1 }], 'https://evil.example.com/api/public/events/?page=2'));
    const items: unknown[] = [];
    const error = await (async () => {
      for await (const item of listAll(make(), 'events/')) items.push(item);
    })().catch((e: unknown) => e);
    expect(items).toEqual([{ id: 1 }]);
    expect(error).toBeInstanceOf(HttpError);
    expect((error as HttpError).message).toBe(
      'the API linked to another origin (https://evil.example.com, expected https://acme.example.com); not followed, the API key is sent only to the base URL',
    );
    expect(transport.stats().requests).toBe(1);
  });

  it('stops on a next that points back to a page already read', async () => {
    nock(ORIGIN)
      .get('/api/public/events/')
      .query({ page: '1' })
      .times(2)
      .reply(200, page([{ id: 1 }], `${ORIGIN}/api/public/events/?page=1`));
    await expect(collect(listAll(make(), 'events/?page=1'))).rejects.toThrow(
      'the list events/?page=1 links back to a page already read (https://acme.example.com/api/public/events/?page=1); stopped',
    );
    expect(transport.stats().requests).toBe(2);
  });

  it('refuses an answer that is not a page', async () => {
    nock(ORIGIN)
      .get('/api/public/events/')
      .reply(200, [{ id: 1 }]);
    await expect(collect(listAll(make(), 'events/'))).rejects.toThrow(
      'the list events/ did not answer a page ({count, next, previous, results})',
    );
  });

  it("throws the service's words when a page fails", async () => {
    nock(ORIGIN).get('/api/public/events/').reply(404, { detail: 'Not found.' });
    await expect(collect(listAll(make(), 'events/'))).rejects.toMatchObject({
      code: 'HTTP_PROTOCOL',
      status: 404,
      message: 'GET /api/public/events/: Not found.',
    });
  });
});
