import nock from 'nock';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createBulkClient, type BulkClientOptions } from '../../src/transport/bulk-client.js';
import { createTransport } from '../../src/transport/create-transport.js';
import type { Transport } from '../../src/transport/types.js';
import { fakeClock } from './_fake-clock.js';

const ORIGIN = 'https://acme.example.com';
const BASE = new URL(`${ORIGIN}/api/public/`);
const KEY = `CANARY${'k'.repeat(52)}SECRET`;
const ID = '3f1c8a52-8d0e-4c47-9a55-2f1b7f0f0b11';
const open: Transport[] = [];

beforeAll(() => nock.disableNetConnect());
afterEach(async () => {
  await Promise.all(open.splice(0).map((t) => t.close()));
  nock.cleanAll();
});
afterAll(() => nock.enableNetConnect());

/** A bulk client on a real transport (the run's rate limit, 429 pauses, retries) with virtual time. */
function make(over: Partial<BulkClientOptions> = {}) {
  const clock = fakeClock();
  const transport = createTransport({
    baseUrl: BASE,
    apiKey: KEY,
    now: clock.now,
    sleep: clock.sleep,
    random: () => 0,
  });
  open.push(transport);
  const client = createBulkClient({ transport, now: clock.now, sleep: clock.sleep, ...over });
  return { client, clock, transport };
}

const status = (s: string, extra: Record<string, unknown> = {}) => ({
  success: true,
  data: {
    id: ID,
    status: s,
    total_count: 2,
    succeeded: 2,
    failed: 0,
    started_at: 'a',
    finished_at: null,
    author: 'api',
    rows_with_errors: [],
    ...extra,
  },
});
const csv = () => new Blob(['custom_id,email\nC-1,a@example.com\n'], { type: 'text/csv' });

describe('upload', () => {
  it('sends input_file as multipart through the transport, with the key and version headers; the new answer shape gives the id', async () => {
    const seen: { headers: Record<string, string | string[]>; body: string }[] = [];
    nock(ORIGIN)
      .post('/api/public/users/import/')
      .reply(function (_uri, body) {
        seen.push({ headers: this.req.headers, body: String(body) });
        return [200, { success: true, data: { import_id: ID } }];
      });
    const { client, transport } = make();
    const outcome = await client.upload({
      kind: 'users',
      file: csv(),
      tags: ['spring', 'vip'],
      triggerAutomations: false,
      columnMapping: { Mail: 'email' },
    });
    expect(outcome).toEqual({ kind: 'accepted', importId: ID, status: undefined, attempts: 1 });
    const [req] = seen;
    expect(req!.headers.authorization).toBe(`Token ${KEY}`);
    expect(req!.headers.accept).toBe('*/*; version=2');
    expect(String(req!.headers['content-type'])).toMatch(/^multipart\/form-data; boundary=/);
    expect(req!.body).toContain('name="input_file"; filename="chunk.csv"');
    expect(req!.body).toContain('custom_id,email\r\nC-1,a@example.com\r\n'.replace(/\r\n/g, '\n'));
    expect(req!.body).toMatch(/name="tags"\r\n\r\nspring,vip\r\n/);
    expect(req!.body).toMatch(/name="trigger_automations"\r\n\r\nfalse\r\n/);
    expect(req!.body).toMatch(/name="column_mapping"\r\n\r\n\{"Mail":"email"\}\r\n/);
    expect(transport.stats().requests).toBe(1);
  });

  it('the older answer shape (the whole status object) gives the id and the status at once', async () => {
    nock(ORIGIN).post('/api/public/products/import/?separator=semicolon').reply(200, status('finished'));
    const outcome = await make().client.upload({
      kind: 'products',
      file: csv(),
      separator: 'semicolon',
      tags: ['ignored'],
    });
    expect(outcome).toMatchObject({ kind: 'accepted', importId: ID, status: { state: 'finished', succeeded: 2 } });
  });

  it("a 429 waits for retry-after and sends the same file again (the transport's pause); a 500 is retried (the upload is an upsert)", async () => {
    const bodies: string[] = [];
    nock(ORIGIN)
      .post('/api/public/users/import/')
      .reply(429, { detail: 'Request was throttled. Expected available in 3 seconds.' }, { 'retry-after': '3' })
      .post('/api/public/users/import/')
      .reply(500, '<h1>Server Error (500)</h1>')
      .post('/api/public/users/import/')
      .reply((_uri, body) => {
        bodies.push(String(body));
        return [200, { success: true, data: { import_id: ID } }];
      });
    const { client, clock, transport } = make();
    const outcome = await client.upload({ kind: 'users', file: csv() });
    expect(outcome).toMatchObject({ kind: 'accepted', importId: ID, attempts: 3 });
    expect(clock.now()).toBeGreaterThanOrEqual(3000);
    expect(bodies[0]).toContain('C-1,a@example.com');
    expect(transport.stats()).toMatchObject({ requests: 3, throttled: 1, retries: 1 });
  });

  it('a 400 refuses the file (nothing imported), with the service message', async () => {
    nock(ORIGIN)
      .post('/api/public/deals/import/')
      .reply(400, { input_file: ['The submitted file is empty.'] });
    expect(await make().client.upload({ kind: 'deals', file: csv() })).toEqual({
      kind: 'refused',
      status: 400,
      message: 'input_file: The submitted file is empty.',
    });
  });

  it('a 2xx without an import id is unknown: an import may exist, its rows cannot be called ok', async () => {
    nock(ORIGIN).post('/api/public/users/import/').reply(200, { success: true });
    expect(await make().client.upload({ kind: 'users', file: csv() })).toEqual({
      kind: 'unknown',
      message: 'the upload was answered 200 without an import id; its rows may have been imported',
    });
  });

  it('500s until the transport gives up: unknown (the upload may have created an import)', async () => {
    nock(ORIGIN).post('/api/public/users/import/').times(5).reply(500, 'oops');
    const outcome = await make().client.upload({ kind: 'users', file: csv() });
    expect(outcome.kind).toBe('unknown');
    expect(outcome).toMatchObject({ message: expect.stringMatching(/may have created an import$/) });
  });

  it('a tag name with a comma is a caller bug (the form separates names with commas)', async () => {
    await expect(make().client.upload({ kind: 'users', file: csv(), tags: ['a,b'] })).rejects.toThrow(
      'tags: a name cannot contain a comma: "a,b"',
    );
  });
});

describe('waitForImport', () => {
  const statusPath = `/api/public/import/status/?import_id=${ID}`;

  it('polls with backoff 1, 2, 4, 8, 15, 15 s until finished; an unknown running status is waited out', async () => {
    const scope = nock(ORIGIN);
    // No row done yet: nothing to shorten the backoff with.
    for (const s of ['running', 'processing', 'queued', 'running', 'running'])
      scope.get(statusPath).reply(200, status(s, { succeeded: 0 }));
    scope.get(statusPath).reply(200, status('finished', { finished_at: 'b' }));
    const { client, clock } = make();
    const outcome = await client.waitForImport(ID);
    expect(outcome).toMatchObject({
      kind: 'ended',
      polls: 6,
      report: { state: 'finished', status: 'finished', succeeded: 2 },
    });
    expect(clock.sleeps.filter((ms) => ms >= 1000)).toEqual([1000, 2000, 4000, 8000, 15_000, 15_000]);
  });

  it("an import that reports its progress is seen ended when that progress says, not at the backoff's next poll", async () => {
    // 5,000 rows at 450 rows/s end at 11.1 s: the backoff alone (1, 3, 7, 15 s) sees that at 15 s.
    const { client, clock } = make();
    nock(ORIGIN)
      .get(statusPath)
      .times(10)
      .reply(() => {
        const done = Math.min(5000, Math.floor((450 * clock.now()) / 1000));
        return [200, status(done === 5000 ? 'finished' : 'running', { total_count: 5000, succeeded: done })];
      });
    const outcome = await client.waitForImport(ID);
    expect(outcome).toMatchObject({ kind: 'ended', polls: 4, report: { state: 'finished', succeeded: 5000 } });
    const pauses = clock.sleeps.filter((ms) => ms >= 500);
    expect(pauses.slice(0, 3)).toEqual([1000, 2000, 4000]);
    expect(clock.now()).toBeGreaterThanOrEqual(11_112);
    expect(clock.now()).toBeLessThan(12_000);
  });

  it('an import that shows every row done but still runs is asked again soon, then less and less often', async () => {
    // Every row done from the first poll, closing for 20 s: the pauses after the first poll are a
    // tenth of the time so far, at least 0.5 s, never more than the backoff (2, 4, 8, 15 s).
    const { client, clock } = make();
    nock(ORIGIN)
      .get(statusPath)
      .times(40)
      .reply(() => [200, status(clock.now() >= 20_000 ? 'finished' : 'running', { total_count: 2, succeeded: 2 })]);
    const outcome = await client.waitForImport(ID);
    expect(outcome).toMatchObject({ kind: 'ended', report: { state: 'finished' } });
    const pauses = clock.sleeps.filter((ms) => ms >= 500);
    // The floor until 5 s, then a tenth of the time so far: 24 polls in 20 s, each pause 10 % longer.
    expect(pauses).toEqual([
      1000, 500, 500, 500, 500, 500, 500, 500, 500, 500, 550, 605, 666, 733, 806, 886, 975, 1073, 1180, 1298, 1428,
      1570, 1727, 1900,
    ]);
    expect(outcome.polls).toBe(24);
  });

  it('a status poll answered 429 waits retry-after (shared pause) and asks again', async () => {
    nock(ORIGIN)
      .get(statusPath)
      .reply(429, { detail: 'Request was throttled. Expected available in 2 seconds.' }, { 'retry-after': '2' })
      .get(statusPath)
      .reply(200, status('finished'));
    const { client, transport } = make();
    expect(await client.waitForImport(ID)).toMatchObject({ kind: 'ended', polls: 1 });
    expect(transport.stats()).toMatchObject({ requests: 2, throttled: 1 });
  });

  it('an import that ends with a failure status is ended, state failed (the caller uploads its rows again)', async () => {
    nock(ORIGIN)
      .get(statusPath)
      .reply(200, status('failed', { succeeded: 1 }));
    expect(await make().client.waitForImport(ID)).toMatchObject({
      kind: 'ended',
      report: { state: 'failed', succeeded: 1 },
    });
  });

  it('gives up after the timeout with a message naming the import id and the last status', async () => {
    nock(ORIGIN)
      .get(statusPath)
      .times(100)
      .reply(200, status('running', { succeeded: 1, total_count: 10 }));
    const { client, clock } = make({ timeoutMs: 60_000 });
    const outcome = await client.waitForImport(ID);
    expect(outcome).toEqual({
      kind: 'timeout',
      message: `import ${ID} did not end within 1 min (last status "running", 1 of 10 rows done); its rows are unknown`,
      last: expect.objectContaining({ state: 'running' }),
      polls: 7,
    });
    expect(clock.now()).toBeGreaterThanOrEqual(60_000);
    expect(clock.now()).toBeLessThan(61_000);
  });

  it('names a timeout that is not whole minutes as it was given (--bulk-timeout 0.5 is 30 s, not 1 min)', async () => {
    nock(ORIGIN).get(statusPath).times(100).reply(200, status('running'));
    for (const [timeoutMs, said] of [
      [30_000, '30 s'],
      [90_000, '1 min 30 s'],
      [600, '600 ms'],
    ] as const) {
      const outcome = await make({ timeoutMs }).client.waitForImport(ID);
      expect(outcome).toMatchObject({ kind: 'timeout' });
      expect((outcome as { message: string }).message).toContain(`did not end within ${said} (`);
    }
  });

  it('a 404 on the status: lost (the service does not know the import)', async () => {
    nock(ORIGIN).get(statusPath).reply(404, { detail: 'Not found.' });
    expect(await make().client.waitForImport(ID)).toEqual({
      kind: 'lost',
      message: `import ${ID}: the status call was refused: Not found.`,
      polls: 1,
    });
  });

  it('5xx answers given up by the transport do not end the wait: the import runs on, asked again later', async () => {
    nock(ORIGIN).get(statusPath).times(5).reply(503, 'busy').get(statusPath).reply(200, status('finished'));
    expect(await make().client.waitForImport(ID)).toMatchObject({ kind: 'ended', polls: 2 });
  });

  it('an answer that is not a status object is read as "not yet"', async () => {
    nock(ORIGIN).get(statusPath).reply(200, { success: true, data: [] }).get(statusPath).reply(200, status('finished'));
    expect(await make().client.waitForImport(ID)).toMatchObject({ kind: 'ended', polls: 2 });
  });

  it("the run's signal stops the wait at once", async () => {
    const controller = new AbortController();
    controller.abort();
    const { client } = make({
      signal: controller.signal,
      sleep: (_ms, signal) => (signal?.aborted ? Promise.reject(new Error('aborted')) : Promise.resolve()),
    });
    expect(await client.waitForImport(ID)).toEqual({
      kind: 'stopped',
      message: `stopped while waiting for import ${ID}`,
      polls: 0,
    });
  });
});
