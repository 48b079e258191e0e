import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import nock from 'nock';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { EngageError, HttpError } from '../../src/errors.js';
import { createTransport } from '../../src/transport/create-transport.js';
import type {
  ApiRequest,
  SendOutcome,
  Transport,
  TransportEvent,
  TransportOptions,
} from '../../src/transport/types.js';
import { fakeClock, manualClock, until } from './_fake-clock.js';

const ORIGIN = 'https://acme.example.com';
const BASE = new URL(`${ORIGIN}/api/public/`);
/** A canary: 64 characters like a real key, easy to find if it ever leaks. */
const KEY = `CANARY${'k'.repeat(52)}SECRET`;

const open: Transport[] = [];

beforeAll(() => nock.disableNetConnect());
afterEach(async () => {
  await Promise.all(open.splice(0).map((t) => t.close()));
  nock.cleanAll();
});
afterAll(() => nock.enableNetConnect());

function make(over: Partial<TransportOptions> = {}) {
  const clock = fakeClock();
  const events: TransportEvent[] = [];
  /** When each request left, on the clock the transport uses. */
  const sentAt: number[] = [];
  const now = over.now ?? clock.now;
  const transport = createTransport({
    fetch: (input, init) => {
      sentAt.push(now());
      return globalThis.fetch(input, init);
    },
    baseUrl: BASE,
    apiKey: KEY,
    now: clock.now,
    sleep: clock.sleep,
    random: () => 1,
    onEvent: (e) => events.push(e),
    ...over,
  });
  open.push(transport);
  return { transport, clock, events, sentAt };
}

const api = () => nock(ORIGIN);
const NOT_RESENT =
  'the request may have been applied and was not resent to avoid a duplicate: check the account; if it is not there, resume --resend-unknown';
const MAY_HAVE = 'the request may have been applied: check the account; if it is not there, resume --resend-unknown';
const post = (path: string, idempotent = false, body: unknown = { name: 'x' }): ApiRequest => ({
  method: 'POST',
  path,
  body,
  idempotent,
});

type Answer = readonly [number, unknown?, Record<string, string>?] | { readonly error: object };

/** Interceptors answering `answers` in turn (the last one repeats); `hits` records each request body. */
function answering(method: 'get' | 'post', path: string, answers: readonly Answer[]) {
  const hits: unknown[] = [];
  const scope = api();
  scope.on('request', (_req: unknown, _interceptor: unknown, body: unknown) => hits.push(body));
  answers.forEach((answer, i) => {
    const interceptor = scope[method](`/api/public/${path}`).times(i === answers.length - 1 ? 10_000 : 1);
    if ('error' in answer) interceptor.replyWithError(answer.error);
    else interceptor.reply(answer[0], answer[1] as never, answer[2]);
  });
  return { hits, scope };
}

describe('requests', () => {
  it('sends the token, the version header, the user agent and JSON', async () => {
    const scope = api()
      .matchHeader('authorization', `Token ${KEY}`)
      .matchHeader('accept', '*/*; version=2')
      .matchHeader('user-agent', 'engage-import/1.2.3')
      .matchHeader('content-type', 'application/json')
      .post('/api/public/events/', { user_id: 42, name: 'signup' })
      .reply(201, { id: 9, created: true });
    const { transport } = make({ userAgent: 'engage-import/1.2.3' });
    const outcome = await transport.send(post('events/', false, { user_id: 42, name: 'signup' }));
    expect(outcome).toEqual({ kind: 'ok', status: 201, body: { id: 9, created: true }, id: '9', attempts: 1 });
    expect(scope.isDone()).toBe(true);
  });

  it('sends no Content-Type without a body', async () => {
    const scope = nock(ORIGIN, { badheaders: ['content-type'] })
      .matchHeader('authorization', `Token ${KEY}`)
      .get('/api/public/events/')
      .reply(200, { count: 0, next: null, previous: null, results: [] });
    const { transport } = make();
    expect(await transport.send({ method: 'GET', path: 'events/', idempotent: true })).toMatchObject({
      kind: 'ok',
      status: 200,
      id: undefined,
    });
    expect(scope.isDone()).toBe(true);
  });

  it.each([
    ['no body', 204, '', 'an empty body'],
    ['a body that is not JSON', 200, 'done', 'text that is not JSON'],
    ['an HTML page', 200, '<html>catch-all</html>', 'an HTML page'],
    ['a JSON array', 201, '[1,2,3]', 'a JSON array'],
  ])('a 2xx with %s is unknown: it is not the answer of the API', async (_name, status, text, what) => {
    api().patch('/api/public/deals/3/').reply(status, text);
    const { transport } = make();
    expect(await transport.send({ method: 'PATCH', path: 'deals/3/', body: {}, idempotent: true })).toEqual({
      kind: 'unknown',
      status,
      message: `HTTP ${status} but the answer is not the JSON object the API sends (${what}): is the base URL the API root?; the request may have been applied and was not resent to avoid a duplicate: check the account; if it is not there, resume --resend-unknown`,
      attempts: 1,
    });
  });

  it('refuses a path that would leave the API prefix: a bug, thrown', async () => {
    const { transport } = make();
    await expect(transport.send(post('/events/'))).rejects.toThrow(TypeError);
    await expect(transport.send(post('https://elsewhere.example.com/'))).rejects.toThrow(TypeError);
  });

  it('a refused TLS certificate is fatal: nothing more is sent', async () => {
    let calls = 0;
    const { transport } = make({
      fetch: async () => {
        calls++;
        throw new TypeError('fetch failed', {
          cause: Object.assign(new Error('certificate has expired'), { code: 'CERT_HAS_EXPIRED' }),
        });
      },
    });
    const expected = {
      name: 'HttpError',
      code: 'NETWORK',
      message: 'could not connect to the API securely: the certificate of the service was refused (CERT_HAS_EXPIRED)',
    };
    await expect(transport.send(post('events/', true))).rejects.toMatchObject(expected);
    await expect(transport.send(post('events/', true))).rejects.toMatchObject(expected);
    expect(calls).toBe(1);
  });

  it('does not retry an error that is not a network failure (a bug)', async () => {
    let calls = 0;
    const { transport } = make({
      fetch: async () => {
        calls++;
        throw new RangeError('a bug');
      },
    });
    await expect(transport.send(post('events/', true))).rejects.toThrow('a bug');
    expect(calls).toBe(1);
  });
});

describe("4xx: failed at once, in the service's words (R-ERR-2, R-ERR-3)", () => {
  it.each([
    [
      'format 3, detail',
      'users-by-id/u-1/events/',
      404,
      { detail: 'No ClientUser matches the given query.' },
      'No ClientUser matches the given query.',
    ],
    [
      'format 2, nested errors',
      'events/',
      400,
      { errors: { user_id: ["Client user with ID '42' does not exist"] } },
      "user_id: Client user with ID '42' does not exist",
    ],
    [
      'format 1, flat fields',
      'deals/',
      400,
      {
        status: ['"9" is not a valid choice.'],
        order_products: [{ product_id: ["Could not find product with id '5'"] }],
      },
      `status: "9" is not a valid choice.; order_products.0.product_id: Could not find product with id '5'`,
    ],
    [
      'product not found',
      'products-by-id/P-1/product_event/',
      404,
      { detail: "Couldn't find product with custom_id = P-1" },
      "Couldn't find product with custom_id = P-1",
    ],
    ['an HTML page', 'deals/', 403, '<html><body><h1>Forbidden</h1></body></html>', 'HTTP 403: Forbidden'],
  ])('%s', async (_name, path, status, body, message) => {
    const server = answering('post', path, [[status, body]]);
    const { transport, clock } = make();
    const outcome = await transport.send(post(path, true));
    expect(outcome).toEqual({ kind: 'failed', status, message, attempts: 1 });
    expect(server.hits).toHaveLength(1);
    expect(clock.sleeps).toEqual([]);
  });
});

describe('401', () => {
  it('throws HttpError HTTP_UNAUTHORIZED and sends nothing more', async () => {
    const server = answering('post', 'events/', [[401, { detail: 'Invalid token.' }]]);
    const { transport } = make();
    const error = await transport.send(post('events/')).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(HttpError);
    expect(error).toMatchObject({
      code: 'HTTP_UNAUTHORIZED',
      status: 401,
      message: 'the API refused the credentials (401): check ENGAGE_API_KEY or --api-key-file',
    });
    // Later requests hear the same refusal, without the status: they never got that answer.
    const heard = { code: 'HTTP_UNAUTHORIZED', status: undefined, message: (error as Error).message };
    await expect(transport.send(post('events/'))).rejects.toMatchObject(heard);
    await expect(transport.getJson('events/')).rejects.toMatchObject(heard);
    expect(server.hits).toHaveLength(1);
  });

  it('stops the requests already waiting for their turn', async () => {
    const clock = manualClock();
    const server = answering('post', 'events/', [[401]]);
    const { transport } = make({ rate: 1, now: clock.now, sleep: clock.sleep });
    const all = Promise.allSettled([1, 2, 3].map(() => transport.send(post('events/'))));
    await clock.advance(0);
    const results = await all;
    expect(results.map((r) => r.status)).toEqual(['rejected', 'rejected', 'rejected']);
    expect(server.hits).toHaveLength(1);
    expect(clock.now()).toBe(0);
  });

  it('tells a request that already left once (then waited to be resent) that it may have been applied, instead of throwing', async () => {
    const clock = manualClock();
    api().post('/api/public/a/').reply(502).post('/api/public/b/').reply(401);
    const { transport } = make({ rate: 1000, headroom: 0, now: clock.now, sleep: clock.sleep, random: () => 0.99 });
    const first = transport.send(post('a/', true));
    await until(() => clock.pending() > 0); // a/ got its 502 and waits for its backoff
    const second = transport.send(post('b/')).catch((e: unknown) => e);
    await clock.advance(1);
    expect(await second).toMatchObject({ code: 'HTTP_UNAUTHORIZED' });
    await clock.advance(60_000);
    expect(await first).toEqual({
      kind: 'not_sent',
      attempts: 1,
      mayHaveApplied: true,
      message:
        'not sent again: the API refused the credentials (401): check ENGAGE_API_KEY or --api-key-file (last: HTTP 502)',
    });
  });
});

describe('429: the whole transport pauses (R-RATE-3)', () => {
  it.each(['retry-after', 'Retry-After'])('waits exactly the %s header, then sends again', async (header) => {
    const server = answering('post', 'events/', [
      [429, { detail: 'Request was throttled. Expected available in 2 seconds.' }, { [header]: '2' }],
      [201, { id: 1 }],
    ]);
    const { transport, clock, events } = make();
    const outcome = await transport.send(post('events/'));
    expect(outcome).toEqual({ kind: 'ok', status: 201, body: { id: 1 }, id: '1', attempts: 2 });
    expect(clock.sleeps).toEqual([2000]);
    expect(server.hits).toHaveLength(2);
    expect(transport.stats()).toEqual({ requests: 2, retries: 0, throttled: 1, lostAnswers: 0 });
    expect(events).toEqual([
      { type: 'throttled', method: 'POST', path: 'events/', waitMs: 2000, source: 'retry-after', count: 1 },
    ]);
  });

  it('reads the wait from the detail when the header is missing', async () => {
    answering('post', 'events/', [
      [429, { detail: 'Request was throttled. Expected available in 3 seconds.' }],
      [201, { id: 1 }],
    ]);
    const { transport, clock, events } = make();
    expect((await transport.send(post('events/'))).kind).toBe('ok');
    expect(clock.sleeps).toEqual([3000]);
    expect(events[0]).toMatchObject({ type: 'throttled', waitMs: 3000, source: 'detail' });
  });

  it('backs off 1 s, 2 s, 4 s when the service names no wait', async () => {
    answering('post', 'events/', [
      [429, 'slow down'],
      [429, 'slow down'],
      [429, 'slow down'],
      [201, { id: 1 }],
    ]);
    const { transport, clock } = make();
    expect((await transport.send(post('events/'))).kind).toBe('ok');
    expect(clock.sleeps).toEqual([1000, 2000, 4000]);
  });

  it('does not use attempts: 429s between two 500s leave the second attempt to come', async () => {
    const server = answering('post', 'events/', [
      [500],
      [429, '', { 'retry-after': '1' }],
      [429, '', { 'retry-after': '1' }],
      [500, { detail: 'A server error occurred.' }],
    ]);
    const { transport } = make({ maxAttempts: 2 });
    const outcome = await transport.send(post('events/', true));
    expect(outcome).toEqual({
      kind: 'unknown',
      status: 500,
      message: `A server error occurred. (gave up after 2 attempts); ${MAY_HAVE}`,
      attempts: 4,
    });
    expect(server.hits).toHaveLength(4);
    expect(transport.stats()).toEqual({ requests: 4, retries: 1, throttled: 2, lostAnswers: 0 });
  });

  it('gives up after 50 throttles: not_sent, since a 429 was not applied', async () => {
    const server = answering('post', 'events/', [
      [429, { detail: 'Request was throttled. Expected available in 1 second.' }, { 'retry-after': '1' }],
    ]);
    const { transport, events } = make();
    const outcome = await transport.send(post('events/'));
    expect(outcome).toEqual({
      kind: 'not_sent',
      message:
        'not sent: throttled 50 times (HTTP 429), gave up: Request was throttled. Expected available in 1 second.',
      attempts: 50,
      mayHaveApplied: false,
      givenUp: true,
    });
    expect(server.hits).toHaveLength(50);
    expect(events.filter((e) => e.type === 'throttled')).toHaveLength(49);
    expect(events.at(-1)).toMatchObject({ type: 'gave_up', reason: 'throttles' });
  });

  it('holds the other requests too, then spreads them from the end of the pause', async () => {
    const clock = manualClock();
    answering('post', 'events/', [
      [429, '', { 'retry-after': '2' }],
      [201, { id: 1 }],
    ]);
    const { transport, events, sentAt } = make({ headroom: 0, now: clock.now, sleep: clock.sleep });
    const first = transport.send(post('events/'));
    await until(() => events.length === 1);
    const others = [transport.send(post('events/')), transport.send(post('events/'))];
    await clock.advance(1999);
    expect(sentAt).toEqual([0]);
    await clock.advance(1000);
    const outcomes = await Promise.all([first, ...others]);
    expect(outcomes.map((o) => o.kind)).toEqual(['ok', 'ok', 'ok']);
    expect(sentAt).toEqual([0, 2000, 2100, 2200]);
  });
});

describe('5xx and retries', () => {
  it('retries a 500, then succeeds, after a jittered backoff', async () => {
    const server = answering('post', 'events/', [[500], [201, { id: 4 }]]);
    const { transport, clock, events } = make({ random: () => 0.5 });
    const outcome = await transport.send(post('events/', true));
    expect(outcome).toEqual({ kind: 'ok', status: 201, body: { id: 4 }, id: '4', attempts: 2 });
    expect(server.hits).toHaveLength(2);
    expect(clock.sleeps).toEqual([250]);
    expect(events).toEqual([
      { type: 'retry', method: 'POST', path: 'events/', attempt: 2, delayMs: 250, reason: 'HTTP 500' },
    ]);
    expect(transport.stats()).toEqual({ requests: 2, retries: 1, throttled: 0, lostAnswers: 0 });
  });

  it('gives up after maxAttempts (default 5), backing off 0.5, 1, 2, 4 s', async () => {
    const server = answering('post', 'deals/', [[503, 'Service Unavailable']]);
    const { transport, clock, events } = make();
    const outcome = await transport.send(post('deals/', true));
    expect(outcome).toEqual({
      kind: 'unknown',
      status: 503,
      message: `HTTP 503: Service Unavailable (gave up after 5 attempts); ${MAY_HAVE}`,
      attempts: 5,
    });
    expect(server.hits).toHaveLength(5);
    expect(clock.sleeps).toEqual([500, 1000, 2000, 4000]);
    expect(events.at(-1)).toEqual({
      type: 'gave_up',
      method: 'POST',
      path: 'deals/',
      reason: 'attempts',
      message: 'HTTP 503: Service Unavailable (gave up after 5 attempts)',
    });
  });

  it.each([1, 3])('honours maxAttempts %d', async (maxAttempts) => {
    const server = answering('post', 'deals/', [[502]]);
    const { transport } = make({ maxAttempts });
    expect(await transport.send(post('deals/', true))).toMatchObject({
      kind: 'unknown',
      status: 502,
      attempts: maxAttempts,
    });
    expect(server.hits).toHaveLength(maxAttempts);
  });

  it('does not retry a 501', async () => {
    const server = answering('post', 'deals/', [[501]]);
    const { transport } = make();
    expect(await transport.send(post('deals/'))).toEqual({
      kind: 'failed',
      status: 501,
      message: 'HTTP 501',
      attempts: 1,
    });
    expect(server.hits).toHaveLength(1);
  });

  it('the retry budget stops a storm: 50 rows of 503 cost 150 requests, not 250', async () => {
    const server = answering('post', 'deals/', [[503]]);
    const { transport, events } = make();
    const outcomes: SendOutcome[] = [];
    for (let i = 0; i < 50; i++) outcomes.push(await transport.send(post('deals/', true)));
    // 500 tokens at 5 a retry: 100 retries for the whole run, then each row fails on its first 503.
    expect(server.hits).toHaveLength(150);
    expect(outcomes.every((o) => o.kind === 'unknown')).toBe(true);
    expect(outcomes.at(-1)).toEqual({
      kind: 'unknown',
      status: 503,
      message: `HTTP 503 (not retried: the retry budget of the run is spent (too many failures)); ${MAY_HAVE}`,
      attempts: 1,
    });
    // The first 25 rows take 4 retries each (25 × 20 tokens); the 25 after them get none.
    expect(events.filter((e) => e.type === 'gave_up' && e.reason === 'attempts')).toHaveLength(25);
    expect(events.filter((e) => e.type === 'gave_up' && e.reason === 'budget')).toHaveLength(25);
  });

  it('successes refill the retry budget', async () => {
    const server = answering('post', 'deals/', [[503], [200, { id: 1 }], [503], [200, { id: 1 }]]);
    const { transport } = make({ retryBudget: { capacity: 5, retryCost: 5, successRefund: 5 } });
    expect((await transport.send(post('deals/', true))).kind).toBe('ok');
    // The success paid back the one retry the budget holds, so the next 503 is retried too.
    expect((await transport.send(post('deals/', true))).kind).toBe('ok');
    expect(server.hits).toHaveLength(4);
  });
});

describe('network failures and inDoubt', () => {
  const reset = { error: { code: 'ECONNRESET' } } as const;
  const refused = { error: { code: 'ECONNREFUSED' } } as const;

  it('a lost answer on a non-idempotent request is not resent', async () => {
    const server = answering('post', 'events/', [reset, [201, { id: 1 }]]);
    const { transport } = make();
    expect(await transport.send(post('events/'))).toEqual({
      kind: 'unknown',
      status: undefined,
      message: `no answer received (connection closed); ${NOT_RESENT}`,
      attempts: 1,
    });
    expect(server.hits).toHaveLength(1);
    expect(transport.stats()).toEqual({ requests: 1, retries: 0, throttled: 0, lostAnswers: 1 });
  });

  it('a lost answer on an idempotent request is resent', async () => {
    const server = answering('post', 'users/update_or_create/', [reset, [200, { id: 8, created: false }]]);
    const { transport } = make();
    expect(await transport.send(post('users/update_or_create/', true))).toMatchObject({
      kind: 'ok',
      id: '8',
      attempts: 2,
    });
    expect(server.hits).toHaveLength(2);
  });

  it('an idempotent request that keeps losing its answer ends unknown', async () => {
    const server = answering('post', 'users/update_or_create/', [reset]);
    const { transport } = make({ maxAttempts: 3 });
    expect(await transport.send(post('users/update_or_create/', true))).toEqual({
      kind: 'unknown',
      status: undefined,
      message: `no answer received (connection closed) (gave up after 3 attempts); ${MAY_HAVE}`,
      attempts: 3,
    });
    expect(server.hits).toHaveLength(3);
  });

  it('a refused connection is retried, whatever the operation', async () => {
    const server = answering('post', 'events/', [refused, refused, [201, { id: 2 }]]);
    const { transport } = make({ inDoubt: 'unknown' });
    expect(await transport.send(post('events/'))).toMatchObject({ kind: 'ok', attempts: 3 });
    expect(server.hits).toHaveLength(3);
  });

  it('a connection refused to the end is not_sent (nothing was applied)', async () => {
    answering('post', 'events/', [refused]);
    const { transport } = make();
    expect(await transport.send(post('events/'))).toEqual({
      kind: 'not_sent',
      message: 'not sent: could not reach the API (connection refused, ECONNREFUSED) (gave up after 5 attempts)',
      attempts: 5,
      mayHaveApplied: false,
      givenUp: true,
    });
  });

  it.each([
    ['unknown', false, reset, 'unknown', 1],
    ['unknown', true, reset, 'ok', 2],
    ['unknown', false, [500], 'unknown', 1],
    ['unknown', true, [500], 'ok', 2],
    ['unknown', false, refused, 'ok', 2],
    ['resend', false, reset, 'ok', 2],
    ['resend', false, [500], 'ok', 2],
  ] as const)(
    'mode %s, idempotent %s, first answer %j → %s after %d requests',
    async (mode, idempotent, first, kind, requests) => {
      const server = answering('post', 'events/', [first, [201, { id: 1 }]]);
      const { transport } = make({ inDoubt: mode });
      expect((await transport.send(post('events/', idempotent))).kind).toBe(kind);
      expect(server.hits).toHaveLength(requests);
    },
  );

  it('a 5xx on a non-idempotent request says why it was not resent', async () => {
    answering('post', 'events/', [[500, { detail: 'A server error occurred.' }]]);
    const { transport } = make({ inDoubt: 'unknown' });
    expect(await transport.send(post('events/'))).toEqual({
      kind: 'unknown',
      status: 500,
      message: `A server error occurred.; ${NOT_RESENT}`,
      attempts: 1,
    });
  });
});

describe('rate', () => {
  it.each([
    [10, [0, 100, 200, 300, 400]],
    [2, [0, 500, 1000, 1500, 2000]],
  ])('at %d requests/s, concurrent sends go out evenly spaced', async (rate, times) => {
    const clock = manualClock();
    const server = answering('post', 'events/', [[201, { id: 1 }]]);
    const { transport, sentAt } = make({ rate, headroom: 0, now: clock.now, sleep: clock.sleep });
    const all = Promise.all(times.map(() => transport.send(post('events/'))));
    await clock.advance(10_000);
    await all;
    expect(sentAt).toEqual(times);
    expect(server.hits).toHaveLength(times.length);
  });

  it('keeps 3% below the rate by default, so 11 requests never share one second of the service window', async () => {
    const clock = manualClock();
    answering('post', 'events/', [[201, { id: 1 }]]);
    const { transport, sentAt } = make({ rate: 10, now: clock.now, sleep: clock.sleep });
    const all = Promise.all(Array.from({ length: 11 }, () => transport.send(post('events/'))));
    await clock.advance(10_000);
    await all;
    expect(sentAt).toHaveLength(11);
    expect(sentAt[10]! - sentAt[0]!).toBeCloseTo(1030.9, 1);
  });

  it('asks beforeFirstAttempt when the request’s slot comes, not while it waits; false keeps it from leaving', async () => {
    const clock = manualClock();
    const server = answering('post', 'events/', [[201, { id: 1 }]]);
    const { transport, sentAt } = make({ rate: 10, headroom: 0, now: clock.now, sleep: clock.sleep });
    const asked: number[] = [];
    const ask = (answer: boolean) => async () => {
      asked.push(clock.now());
      return answer;
    };
    const sends = [true, false, true].map((answer) =>
      transport.send({ ...post('events/'), beforeFirstAttempt: ask(answer) }),
    );
    await clock.advance(10_000);
    const outcomes = await Promise.all(sends);
    // Each is asked at its own slot, 100 ms apart; the one refused never leaves.
    expect(asked).toEqual([0, 100, 200]);
    expect(outcomes.map((o) => o.kind)).toEqual(['ok', 'not_sent', 'ok']);
    expect(outcomes[1]).toEqual({
      kind: 'not_sent',
      message: 'not sent: its intent could not be recorded',
      attempts: 0,
      mayHaveApplied: false,
    });
    expect(sentAt).toEqual([0, 200]);
    expect(server.hits).toHaveLength(2);
  });

  it.each([
    [{ rate: 0 }, 'rate must be a positive number, got 0'],
    [{ concurrency: 0 }, 'concurrency must be a whole number of at least 1, got 0'],
    [{ maxAttempts: 1.5 }, 'maxAttempts must be a whole number of at least 1, got 1.5'],
    [{ apiKey: ' ' }, 'the API key is empty'],
  ])('refuses %j', (over, message) => {
    expect(() => createTransport({ baseUrl: BASE, apiKey: KEY, ...over })).toThrow(message);
  });
});

describe('abort and close', () => {
  it('sends nothing once the signal is aborted', async () => {
    const server = answering('post', 'events/', [[201]]);
    const controller = new AbortController();
    controller.abort('SIGINT');
    const { transport } = make({ signal: controller.signal });
    expect(await transport.send(post('events/'))).toEqual({
      kind: 'not_sent',
      message: 'not sent: the run was interrupted',
      attempts: 0,
      mayHaveApplied: false,
    });
    expect(server.hits).toHaveLength(0);
  });

  it('a run interrupted while the intent was being recorded: the request that had its slot does not leave', async () => {
    const server = answering('post', 'events/', [[201]]);
    const controller = new AbortController();
    const { transport } = make({ signal: controller.signal });
    const outcome = await transport.send({
      ...post('events/'),
      beforeFirstAttempt: async () => {
        controller.abort('SIGINT');
        return true;
      },
    });
    expect(outcome).toEqual({
      kind: 'not_sent',
      message: 'not sent: the run was interrupted',
      attempts: 0,
      mayHaveApplied: false,
    });
    expect(server.hits).toHaveLength(0);
  });

  it('a run stopped by another request while the intent was being recorded: this one hears why, and does not leave', async () => {
    const server = answering('post', 'events/', [[401, { detail: 'Invalid token.' }]]);
    const { transport } = make();
    let secondDone: (refusal: unknown) => void = () => {};
    const second = new Promise<unknown>((resolve) => {
      secondDone = resolve;
    });
    const first = transport.send({
      ...post('events/'),
      beforeFirstAttempt: async () => {
        // The other request leaves and meets the 401 while this one's intent is being committed.
        const refusal = await transport.send(post('events/')).catch((e: unknown) => e);
        secondDone(refusal);
        return true;
      },
    });
    await expect(first).rejects.toThrow(/refused the credentials \(401\)/);
    expect(await second).toMatchObject({ status: 401, message: expect.stringContaining('refused the credentials') });
    expect(server.hits).toHaveLength(1);
  });

  it('ends a 429 pause at once: the throttled request is not_sent', async () => {
    const clock = manualClock();
    const controller = new AbortController();
    const server = answering('post', 'events/', [
      [429, { detail: 'Request was throttled. Expected available in 60 seconds.' }, { 'retry-after': '60' }],
    ]);
    const { transport, events } = make({ now: clock.now, sleep: clock.sleep, signal: controller.signal });
    const pending = transport.send(post('events/'));
    await until(() => events.length === 1);
    await clock.advance(1000);
    controller.abort('SIGTERM');
    expect(await pending).toEqual({
      kind: 'not_sent',
      message:
        'not sent again: the run was interrupted while the request waited to be resent (last: Request was throttled. Expected available in 60 seconds.)',
      attempts: 1,
      // A 429 is a refusal: the service did not apply it, so it can be sent on resume.
      mayHaveApplied: false,
    });
    expect(server.hits).toHaveLength(1);
    expect(clock.now()).toBe(1000);
  });

  it('ends a retry backoff at once', async () => {
    const clock = manualClock();
    const controller = new AbortController();
    const server = answering('post', 'events/', [[503]]);
    const { transport, events } = make({ now: clock.now, sleep: clock.sleep, signal: controller.signal });
    const pending = transport.send(post('events/', true));
    await until(() => events.length === 1);
    await clock.advance(100);
    controller.abort('SIGINT');
    expect(await pending).toEqual({
      kind: 'not_sent',
      message: 'not sent again: the run was interrupted while the request waited to be resent (last: HTTP 503)',
      attempts: 1,
      mayHaveApplied: true,
    });
    expect(server.hits).toHaveLength(1);
    expect(clock.now()).toBe(100);
  });

  it('a request refused before it left (connection refused) is not_sent and certainly not applied', async () => {
    const clock = manualClock();
    const controller = new AbortController();
    answering('post', 'events/', [{ error: { code: 'ECONNREFUSED' } }]);
    const { transport, events } = make({ now: clock.now, sleep: clock.sleep, signal: controller.signal });
    const pending = transport.send(post('events/'));
    await until(() => events.length === 1);
    controller.abort('SIGINT');
    expect(await pending).toMatchObject({ kind: 'not_sent', attempts: 1, mayHaveApplied: false });
  });

  it('lets a request in flight finish', async () => {
    const controller = new AbortController();
    api()
      .post('/api/public/events/')
      .reply(() => {
        controller.abort('SIGINT');
        return [201, { id: 5 }];
      });
    const { transport } = make({ signal: controller.signal });
    expect(await transport.send(post('events/'))).toMatchObject({ kind: 'ok', id: '5' });
  });

  it('after close, requests are not_sent', async () => {
    const { transport } = make();
    await transport.close();
    await transport.close();
    expect(await transport.send(post('events/'))).toEqual({
      kind: 'not_sent',
      message: 'not sent: the transport was closed',
      attempts: 0,
      mayHaveApplied: false,
    });
  });
});

describe('the key never leaves in an error', () => {
  it('an unexpected fetch error that quotes the Authorization header is rethrown without the key', async () => {
    const { transport } = make({
      fetch: () =>
        Promise.reject(
          Object.assign(new TypeError(`Headers.append: "Token ${KEY}" is an invalid header value.`), {
            cause: new Error(KEY),
          }),
        ),
    });
    const error = (await transport.send(post('events/')).catch((e: unknown) => e)) as Error;
    expect(error).toBeInstanceOf(Error);
    expect(error.name).toBe('TypeError');
    expect(error.message).toBe('Headers.append: "Token [redacted]" is an invalid header value.');
    expect(String(error.stack)).not.toContain('CANARY');
    expect(error.cause).toBeUndefined();
  });
});

describe('redirects and getJson', () => {
  it('a redirect is fatal: the base URL is wrong', async () => {
    api()
      .post('/api/public/users/update_or_create/')
      .reply(301, '', { Location: 'https://acme.example.com/api/public/v2/users/update_or_create/?k=1' });
    const { transport } = make();
    await expect(transport.send(post('users/update_or_create/', true))).rejects.toMatchObject({
      name: 'HttpError',
      code: 'HTTP_PROTOCOL',
      status: 301,
      message:
        'the API answered 301 (a redirect to https://acme.example.com/api/public/v2/users/update_or_create/); redirects are not followed, check the base URL (the API root, e.g. https://acme.example.com/api/public/)',
    });
  });

  it('a redirect to a request that is not idempotent stops the run, and its row is unknown: the server read it (a 303 says it processed it)', async () => {
    api()
      .post('/api/public/events/')
      .reply(303, '', { Location: '/api/public/events/7/' })
      .post('/api/public/events/')
      .reply(201, { id: 8 });
    const { transport } = make();
    expect(await transport.send(post('events/'))).toEqual({
      kind: 'unknown',
      status: 303,
      message:
        'the API answered 303 (a redirect to https://acme.example.com/api/public/events/7/); redirects are not followed, check the base URL (the API root, e.g. https://acme.example.com/api/public/); the server read the request before it answered, so it may have been applied: check the account before sending this row again',
      attempts: 1,
    });
    expect(transport.stopped()?.status).toBe(303);
    await expect(transport.send(post('events/'))).rejects.toMatchObject({ code: 'HTTP_PROTOCOL' });
  });

  it.each([
    [524, false, 'unknown', 1],
    [507, false, 'unknown', 1],
    [524, true, 'unknown', 5],
  ])(
    'a %s (a gateway or another 5xx) may come after the write: idempotent %s → %s after %d attempt(s)',
    async (status, idempotent, kind, attempts) => {
      const server = answering('post', 'deals/', [[status]]);
      const { transport } = make();
      expect(await transport.send(post('deals/', idempotent))).toMatchObject({ kind, status, attempts });
      expect(server.hits).toHaveLength(attempts);
    },
  );

  it('getJson reads a path or a full URL on the same origin', async () => {
    api()
      .get('/api/public/events/')
      .reply(200, { results: [1] })
      .get('/api/public/events/?page=2')
      .reply(200, { results: [2] });
    const { transport } = make();
    expect(await transport.getJson('events/')).toEqual({ results: [1] });
    expect(await transport.getJson(`${ORIGIN}/api/public/events/?page=2`)).toEqual({ results: [2] });
  });

  it.each([
    'https://evil.example.com/api/public/events/?page=2',
    'http://acme.example.com/api/public/events/?page=2',
    '//evil.example.com/api/public/events/',
  ])('getJson never sends the key to another origin: %s', async (url) => {
    const { transport } = make();
    const error = await transport.getJson(url).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(HttpError);
    expect((error as HttpError).message).toMatch(
      /^the API linked to another origin \(\S+, expected https:\/\/acme\.example\.com\); not followed, the API key is sent only to the base URL$/,
    );
    expect(transport.stats().requests).toBe(0);
  });

  it.each([
    [[404, { detail: 'Not found.' }], 'HTTP_PROTOCOL', 404, 'GET /api/public/events/: Not found.'],
    [
      { error: { code: 'ENOTFOUND' } },
      'NETWORK',
      undefined,
      'GET /api/public/events/: not sent: could not reach the API (host not found, ENOTFOUND) (gave up after 2 attempts)',
    ],
  ] as const)('getJson throws when the answer is not ok', async (answer, code, status, message) => {
    answering('get', 'events/', [answer]);
    const { transport } = make({ maxAttempts: 2 });
    await expect(transport.getJson('events/')).rejects.toMatchObject({ code, status, message });
  });
});

describe('the API key never leaks', () => {
  it('appears in no outcome, event or error, even when the service echoes it', async () => {
    const echo = { detail: `bad header Authorization: Token ${KEY}` };
    const seen: string[] = [];
    const collect = async (fn: () => Promise<unknown>) => {
      try {
        seen.push(JSON.stringify(await fn()));
      } catch (error) {
        seen.push(String(error), (error as Error).message, JSON.stringify(error));
      }
    };
    answering('post', 'a/', [[400, echo]]);
    answering('post', 'b/', [[500, `<p>${KEY}</p>`]]);
    answering('post', 'c/', [[429, echo]]);
    answering('post', 'd/', [{ error: { code: 'ECONNRESET' } }]);
    answering('get', 'e/', [[404, echo]]);
    // 2xx answers that quote it: a created record, and a bulk import's list of failed rows.
    answering('post', 'h/', [[201, { id: 1, note: `made with Token ${KEY}` }]]);
    answering('get', 'i/', [[200, { data: { status: 'finished', rows_with_errors: [{ errors: echo }] } }]]);
    const { transport, events } = make({ maxAttempts: 2 });
    await collect(() => transport.send(post('a/')));
    await collect(() => transport.send(post('b/')));
    await collect(() => transport.send(post('c/')));
    await collect(() => transport.send(post('d/')));
    await collect(() => transport.getJson('e/'));
    await collect(() => transport.send(post('h/')));
    await collect(() => transport.getJson('i/'));
    api()
      .post('/api/public/f/')
      .reply(302, '', { Location: `https://acme.example.com/login/?token=${KEY}` });
    await collect(() => transport.send(post('f/')));
    const second = make();
    answering('post', 'g/', [[401, echo]]);
    await collect(() => second.transport.send(post('g/')));
    seen.push(...events.map((e) => JSON.stringify(e)));
    expect(seen.join('\n')).toContain('[redacted]');
    for (const text of seen) expect(text).not.toContain('CANARY');
  });

  it('refusing the options does not show the key', () => {
    let error: unknown;
    try {
      createTransport({ baseUrl: BASE, apiKey: KEY, rate: -1 });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(EngageError);
    expect(String(error)).not.toContain('CANARY');
  });
});

describe('over real loopback HTTP (undici Agent as the dispatcher)', () => {
  let server: Server;
  let base: URL;
  const received: {
    method: string | undefined;
    url: string | undefined;
    headers: IncomingMessage['headers'];
    body: string;
  }[] = [];
  let behaviour: (req: IncomingMessage, body: string, res: import('node:http').ServerResponse) => void;

  beforeAll(async () => {
    nock.enableNetConnect('127.0.0.1');
    server = createServer((req, res) => {
      let body = '';
      req.on('data', (c: Buffer) => (body += c.toString()));
      req.on('end', () => {
        received.push({ method: req.method, url: req.url, headers: req.headers, body });
        behaviour(req, body, res);
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    base = new URL(`http://127.0.0.1:${(server.address() as AddressInfo).port}/api/public/`);
  });
  afterEach(() => {
    received.length = 0;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
    nock.disableNetConnect();
  });

  const live = (over: Partial<TransportOptions> = {}) => make({ baseUrl: base, ...over });

  it('sends the headers and the body', async () => {
    behaviour = (_req, _body, res) =>
      res.writeHead(201, { 'content-type': 'application/json' }).end('{"id":77,"created":true}');
    const { transport } = live({ userAgent: 'engage-import/9.9.9' });
    expect(await transport.send(post('events/', false, { user_id: 1, name: 'n' }))).toMatchObject({
      kind: 'ok',
      status: 201,
      id: '77',
    });
    expect(received).toHaveLength(1);
    expect(received[0]).toMatchObject({
      method: 'POST',
      url: '/api/public/events/',
      body: '{"user_id":1,"name":"n"}',
      headers: {
        authorization: `Token ${KEY}`,
        accept: '*/*; version=2',
        'user-agent': 'engage-import/9.9.9',
        'content-type': 'application/json',
      },
    });
  });

  it.each([
    [false, 'unknown', 1],
    [true, 'ok', 2],
  ])(
    'connection closed after the body was sent (idempotent %s) → %s after %d requests',
    async (idempotent, kind, requests) => {
      let n = 0;
      behaviour = (req, _body, res) => {
        if (n++ === 0) req.socket.destroy();
        else res.writeHead(200, { 'content-type': 'application/json' }).end('{"id":1}');
      };
      const { transport } = live();
      const outcome = await transport.send(post('users/update_or_create/', idempotent));
      expect(outcome.kind).toBe(kind);
      expect(received).toHaveLength(requests);
      expect(transport.stats().lostAnswers).toBe(1);
    },
  );

  it('a 2xx whose body breaks off is unknown: what was stored cannot be told', async () => {
    behaviour = (req, _body, res) => {
      res.writeHead(201, { 'content-type': 'application/json', 'content-length': '100' });
      res.write('{"id":', () => req.socket.destroy());
    };
    const { transport } = live();
    expect(await transport.send(post('events/'))).toMatchObject({
      kind: 'unknown',
      status: 201,
      message: expect.stringMatching(
        /^HTTP 201 but the answer is not the JSON object the API sends \(its body broke off\)/,
      ),
      attempts: 1,
    });
    expect(received).toHaveLength(1);
  });

  it('a headers timeout is a lost answer (50 ms real timeout)', async () => {
    behaviour = () => undefined; // never answers
    const { transport } = live({ timeouts: { headersMs: 50 } });
    expect(await transport.send(post('events/'))).toEqual({
      kind: 'unknown',
      status: undefined,
      message: `no answer received (timed out waiting for the answer); ${NOT_RESENT}`,
      attempts: 1,
    });
  });

  it('a refused connection is retried', async () => {
    const closed = createServer();
    await new Promise<void>((r) => closed.listen(0, '127.0.0.1', r));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((r) => closed.close(r));
    const { transport } = live({ baseUrl: new URL(`http://127.0.0.1:${port}/api/public/`), maxAttempts: 2 });
    expect(await transport.send(post('events/'))).toEqual({
      kind: 'not_sent',
      message: 'not sent: could not reach the API (connection refused, ECONNREFUSED) (gave up after 2 attempts)',
      attempts: 2,
      mayHaveApplied: false,
      givenUp: true,
    });
  });
});
