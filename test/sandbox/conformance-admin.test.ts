/** Sandbox-only: the admin endpoints under /__sandbox/ and the request log (memory, admin endpoint, --log NDJSON). */
import { readFileSync } from 'node:fs';
import { connect } from 'node:net';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { startSandbox } from '../../src/sandbox/index.js';
import { tmpTree } from '../helpers/tmp.js';
import { manualClock, sandbox, TEST_KEY, users } from './_helpers.js';

describe('the request log', () => {
  it('records every API request: time, method, path as received, status, applied, parsed body, fault', async () => {
    const s = await sandbox({ now: manualClock().now });
    await s.call('POST', 'users/update_or_create/', { custom_id: 'C-1' });
    await s.call('POST', 'events/', { user_id: 999, name: 'x' });
    await s.call('GET', 'events/?page=1');
    await s.call('POST', 'product-event-creation/SKU%2F1/', { user_id: 1 });
    expect(s.requests).toEqual([
      {
        time: '2026-01-05T09:00:00.123Z',
        method: 'POST',
        path: '/api/public/users/update_or_create/',
        status: 201,
        applied: true,
        body: { custom_id: 'C-1' },
        fault: null,
      },
      {
        time: '2026-01-05T09:00:00.123Z',
        method: 'POST',
        path: '/api/public/events/',
        status: 400,
        applied: false,
        body: { user_id: 999, name: 'x' },
        fault: null,
      },
      {
        time: '2026-01-05T09:00:00.123Z',
        method: 'GET',
        path: '/api/public/events/?page=1',
        status: 200,
        applied: false,
        body: null,
        fault: null,
      },
      {
        time: '2026-01-05T09:00:00.123Z',
        method: 'POST',
        path: '/api/public/product-event-creation/SKU%2F1/',
        status: 404,
        applied: false,
        body: { user_id: 1 },
        fault: null,
      },
    ]);
    expect((await s.admin('GET', 'requests')).body).toEqual(s.requests);
  });

  it('lets a test count how many times a row reached the server and took effect', async () => {
    const s = await sandbox({ seed: 3 });
    await users(s, 'C-1');
    s.setFaults({ failRate: 0.5 });
    for (let i = 0; i < 20; i++)
      await s.call('POST', 'users-by-id/C-1/events/', { name: 'Order', data: { row: 'R-7' } }).catch(() => undefined);
    const row = s.requests.filter((r) => (r.body as { data?: { row?: string } } | null)?.data?.row === 'R-7');
    expect(row).toHaveLength(20);
    expect(row.filter((r) => r.applied)).toHaveLength(s.state.eventOccurrences().length);
  });

  it('--log FILE: one NDJSON line per entry, the same as in memory, never the key', async () => {
    const file = join(tmpTree(), 'requests.ndjson');
    const s = await sandbox({ log: file });
    await s.call('POST', 'users/update_or_create/', { custom_id: 'C-1' });
    await s.call('GET', 'events/', undefined, { headers: { Authorization: `Token ${TEST_KEY}x` } });
    const inMemory = [...s.requests];
    await s.close();
    const text = readFileSync(file, 'utf8');
    expect(
      text
        .trimEnd()
        .split('\n')
        .map((l) => JSON.parse(l)),
    ).toEqual(inMemory);
    expect(text).not.toContain('CANARY');
    expect(text.toLowerCase()).not.toContain('authorization');
  });

  it('an unwritable --log fails the start', async () => {
    await expect(startSandbox({ port: 0, log: join(tmpTree(), 'missing', 'requests.ndjson') })).rejects.toThrow(
      /ENOENT/,
    );
  });
});

describe('admin endpoints (no key needed, not logged)', () => {
  it('GET /__sandbox/state answers every record', async () => {
    const s = await sandbox({ fixtures: { products: [{ custom_id: 'SKU-1' }] } });
    await users(s, 'C-1');
    await s.call('POST', 'deals/', { name: 'D' });
    await s.call('POST', 'events/', { user_id: 1, name: 'Signup' });
    await s.call('POST', 'products-by-id/SKU-1/product_event/', {
      user_id: 1,
      event_type: 'view',
      data: {},
      timestamp: 1,
    });
    const res = await s.admin('GET', 'state');
    expect(res.status).toBe(200);
    expect(Object.keys(res.body)).toEqual([
      'pipelines',
      'webpushCampaigns',
      'users',
      'products',
      'deals',
      'events',
      'eventOccurrences',
      'productEvents',
    ]);
    expect(res.body).toEqual(JSON.parse(JSON.stringify(s.state.snapshot())));
    expect([
      res.body.users.length,
      res.body.products.length,
      res.body.deals.length,
      res.body.events.length,
      res.body.eventOccurrences.length,
      res.body.productEvents.length,
    ]).toEqual([1, 1, 1, 1, 1, 1]);
  });

  it('POST /__sandbox/reset: records back to the fixtures, ids restart, the request log and the rate window emptied', async () => {
    const clock = manualClock();
    const s = await sandbox({ fixtures: { events: ['Signup'] }, rate: 2, now: clock.now });
    const log = s.requests;
    await users(s, 'C-1');
    await s.call('PATCH', 'webpush-campaign/1/', { name: 'changed' });
    expect((await s.call('GET', 'events/')).status).toBe(429);
    expect((await s.admin('POST', 'reset')).body).toEqual({ reset: true });
    expect(s.state.users()).toEqual([]);
    expect(s.state.events()).toEqual([{ id: 1, name: 'Signup' }]);
    expect(s.state.webpushCampaigns()[0]!.name).toBe('Campaign 1');
    expect(log).toEqual([]);
    expect(s.requests).toBe(log);
    expect((await s.call('POST', 'users/update_or_create/', { custom_id: 'C-9' })).body).toEqual({
      created: true,
      id: 1,
    });
  });

  it('POST /__sandbox/reset-log empties the log only', async () => {
    const s = await sandbox();
    await users(s, 'C-1');
    await s.admin('POST', 'reset-log');
    expect(s.requests).toEqual([]);
    expect(s.state.users()).toHaveLength(1);
  });

  it('admin requests are not in the request log; unknown admin paths are 404, wrong methods 405', async () => {
    const s = await sandbox();
    expect((await s.admin('GET', 'nothing')).status).toBe(404);
    expect((await s.admin('GET', 'constructor')).status).toBe(404);
    expect((await s.admin('DELETE', 'state')).status).toBe(405);
    expect((await s.admin('GET', 'state/')).status).toBe(200);
    // The address the sandbox prints lists what can be asked there.
    const index = await s.admin('GET', '');
    expect([index.status, index.body.endpoints]).toEqual([200, expect.arrayContaining(['GET /__sandbox/requests'])]);
    expect(s.requests).toEqual([]);
  });

  it('in code: state, requests, reset() and the URLs', async () => {
    const s = await sandbox();
    expect(s.url).toBe(`http://127.0.0.1:${s.port}/api/public/`);
    expect(s.adminUrl).toBe(`http://127.0.0.1:${s.port}/__sandbox/`);
    await users(s, 'C-1');
    s.reset();
    expect([s.state.users(), s.requests]).toEqual([[], []]);
  });

  it('close() lets answers in flight go out, then refuses new connections', async () => {
    let release!: () => void;
    const s = await sandbox({ latencyMs: 500, sleep: () => new Promise<void>((r) => (release = r)) });
    const pending = s.call('GET', 'events/');
    while (s.requests.length === 0) await new Promise((r) => setImmediate(r));
    const closed = s.close();
    release();
    expect((await pending).status).toBe(200);
    await closed;
    await expect(fetch(s.url)).rejects.toThrow();
  });

  it('close() does not wait for a client that went away in the middle of its body', async () => {
    const s = await sandbox();
    const socket = connect(s.port, '127.0.0.1');
    await new Promise((r) => socket.once('connect', r));
    socket.write(
      `POST /api/public/deals/ HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"na`,
    );
    await new Promise((r) => setTimeout(r, 20));
    socket.destroy();
    await s.close();
    expect(s.requests).toEqual([]);
  });
});
