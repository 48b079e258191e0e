import nock from 'nock';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createTransport } from '../../src/transport/create-transport.js';
import type { ApiRequest, Transport, TransportOptions } from '../../src/transport/types.js';
import { fakeClock } from './_fake-clock.js';

const ORIGIN = 'https://acme.example.com';
const open: Transport[] = [];
beforeAll(() => nock.disableNetConnect());
afterEach(async () => {
  await Promise.all(open.splice(0).map((t) => t.close()));
  nock.cleanAll();
});
afterAll(() => nock.enableNetConnect());

function make(over: Partial<TransportOptions> = {}) {
  const clock = fakeClock();
  const transport = createTransport({
    baseUrl: new URL(`${ORIGIN}/api/public/`),
    apiKey: 'k'.repeat(64),
    now: clock.now,
    sleep: clock.sleep,
    random: () => 1,
    ...over,
  });
  open.push(transport);
  return { transport, clock };
}
const post = (path: string, extra: Partial<ApiRequest> = {}): ApiRequest => ({
  method: 'POST',
  path,
  body: { custom_id: 'P1' },
  idempotent: false,
  ...extra,
});
const exists = (status: number, text: string) => status === 400 && text.includes('already exists');

describe('the run stops when every request meets the same wall', () => {
  it('30 s of requests that never left: the run stops, later sends throw', async () => {
    nock(ORIGIN).post('/api/public/events/').times(1000).replyWithError({ code: 'ECONNREFUSED' });
    const { transport, clock } = make();
    const outcomes = [];
    while (transport.stopped() === undefined) outcomes.push(await transport.send(post('events/')));
    expect(outcomes.every((o) => o.kind === 'not_sent')).toBe(true);
    expect(clock.now()).toBeGreaterThanOrEqual(30_000);
    expect(clock.now()).toBeLessThan(40_000);
    expect(transport.stopped()?.message).toMatch(
      /^no request could reach the API for 3\d s \(last: could not reach the API \(connection refused, ECONNREFUSED\)\); the run stopped$/,
    );
    await expect(transport.send(post('events/'))).rejects.toMatchObject({ code: 'NETWORK' });
  });

  it('a port fetch refuses is a request that never left', async () => {
    const { transport } = make({
      baseUrl: new URL('http://127.0.0.1:6666/api/public/'),
      maxAttempts: 1,
      fetch: (input, init) => globalThis.fetch(input, init),
    });
    nock.enableNetConnect('127.0.0.1:6666');
    expect(await transport.send(post('events/'))).toMatchObject({
      kind: 'not_sent',
      message: expect.stringContaining('fetch refuses to use this port'),
      mayHaveApplied: false,
    });
  });

  it("three 2xx answers in a row that are not the API's: unknown, then the run stops", async () => {
    nock(ORIGIN).post('/api/public/events/').times(3).reply(200, '<html>welcome</html>');
    const { transport } = make();
    for (let i = 0; i < 3; i++) expect((await transport.send(post('events/'))).kind).toBe('unknown');
    expect(transport.stopped()).toMatchObject({
      code: 'HTTP_PROTOCOL',
      message: expect.stringMatching(
        /^3 answers in a row were not what the API sends .*the base URL is probably wrong/,
      ),
    });
  });

  it('three timeouts in a row stop the run', async () => {
    nock(ORIGIN).post('/api/public/events/').times(3).replyWithError({ code: 'UND_ERR_HEADERS_TIMEOUT' });
    const { transport } = make();
    for (let i = 0; i < 3; i++) expect((await transport.send(post('events/'))).kind).toBe('unknown');
    expect(transport.stopped()?.message).toMatch(/^3 requests in a row got no answer in time .*--request-timeout\)$/);
  });

  it.each([['99999'], ['3000000'], ['Fri, 31 Dec 2100 23:59:59 GMT']])(
    'retry-after %s beyond --max-pause: the request is refused, the run stops at once',
    async (header) => {
      nock(ORIGIN)
        .post('/api/public/events/')
        .reply(429, { detail: 'Request was throttled.' }, { 'retry-after': header });
      const { transport, clock } = make();
      await expect(transport.send(post('events/'))).rejects.toMatchObject({
        code: 'HTTP_THROTTLED',
        message: expect.stringMatching(
          /^the API asked to pause \d+ s \(HTTP 429, retry-after\), longer than the longest pause allowed \(--max-pause 300 s\); the run stopped$/,
        ),
      });
      expect(clock.sleeps).toEqual([]);
      expect(transport.stopped()?.code).toBe('HTTP_THROTTLED');
    },
  );

  it('--max-pause is named as given, not rounded', async () => {
    nock(ORIGIN).post('/api/public/events/').reply(429, '', { 'retry-after': '1' });
    const { transport } = make({ maxPauseMs: 500 });
    await expect(transport.send(post('events/'))).rejects.toMatchObject({
      message: expect.stringContaining('(--max-pause 0.5 s)'),
    });
  });

  it('a pause within --max-pause is waited', async () => {
    nock(ORIGIN)
      .post('/api/public/events/')
      .reply(429, '', { 'retry-after': '600' })
      .post('/api/public/events/')
      .reply(201, { id: 1 });
    const { transport, clock } = make({ maxPauseMs: 900_000 });
    expect((await transport.send(post('events/'))).kind).toBe('ok');
    expect(clock.now()).toBe(600_000);
  });
});

describe('a create refused as existing, after an attempt in doubt', () => {
  const taken = { custom_id: ['product with this custom id already exists.'] };

  it('resent after a lost answer (--in-doubt resend): "already exists" is unknown, since the product may have been there before', async () => {
    nock(ORIGIN)
      .post('/api/public/products/')
      .replyWithError({ code: 'ECONNRESET' })
      .post('/api/public/products/')
      .reply(400, taken);
    const { transport } = make({ inDoubt: 'resend' });
    expect(await transport.send(post('products/', { exists }))).toEqual({
      kind: 'unknown',
      status: 400,
      message:
        'custom_id: product with this custom id already exists.; an earlier attempt of this row may have created it, or it was there before this run and this row never reached it: check its values in the account (a resend gets the same answer)',
      attempts: 2,
    });
  });

  it('a row in doubt from an earlier run, resent: "already exists" is unknown', async () => {
    nock(ORIGIN).post('/api/public/products/').reply(400, taken);
    const { transport } = make();
    expect(await transport.send(post('products/', { exists, inDoubt: true }))).toMatchObject({
      kind: 'unknown',
      attempts: 1,
    });
  });

  it('a row in doubt from an earlier run, resent and refused otherwise (409): unknown, the refusal says nothing of the earlier send', async () => {
    nock(ORIGIN).post('/api/public/events/').reply(409, { detail: 'conflict' });
    const { transport } = make();
    expect(await transport.send(post('events/', { inDoubt: true }))).toEqual({
      kind: 'unknown',
      status: 409,
      message:
        'conflict; an earlier attempt of this row may have been applied, and this answer only shows that the resend was not: check the account',
      attempts: 1,
    });
  });

  it('on a first attempt "already exists" stays failed: the key was taken before this run', async () => {
    nock(ORIGIN).post('/api/public/products/').reply(400, taken);
    const { transport } = make();
    expect(await transport.send(post('products/', { exists }))).toMatchObject({
      kind: 'failed',
      status: 400,
      message: 'custom_id: product with this custom id already exists.',
    });
  });
});
