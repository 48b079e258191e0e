/** docs/api-contract.md R-RATE-1 … R-RATE-4: 10 requests/s per key, a sliding one-second window; 429 with `retry-after`. */
import { request } from 'node:http';
import { describe, expect, it } from 'vitest';
import { startSandbox } from '../../src/sandbox/index.js';
import { manualClock, sandbox, TEST_KEY, type TestSandbox } from './_helpers.js';

async function burst(s: TestSandbox, n: number): Promise<number[]> {
  const statuses: number[] = [];
  for (let i = 0; i < n; i++) statuses.push((await s.call('GET', 'events/')).status);
  return statuses;
}

/** The raw response header lines, as they crossed the wire (fetch would hide their case). */
function rawHeaders(url: string): Promise<{ status: number; raw: string[] }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { headers: { Authorization: `Token ${TEST_KEY}` } }, (res) => {
      res.resume();
      res.on('end', () => resolve({ status: res.statusCode ?? 0, raw: res.rawHeaders }));
    });
    req.on('error', reject);
    req.end();
  });
}

describe('R-RATE: rate limit', () => {
  it('§8 default 10 requests per second: the 11th within the second is a 429', async () => {
    const clock = manualClock();
    const plain = await startSandbox({ port: 0, now: clock.now });
    try {
      expect(plain.faults().rate).toBe(10);
      const statuses: number[] = [];
      for (let i = 0; i < 11; i++)
        statuses.push(
          (await fetch(new URL('events/', plain.url), { headers: { Authorization: `Token ${plain.apiKey}` } })).status,
        );
      expect(statuses).toEqual([...Array(10).fill(200), 429]);
    } finally {
      await plain.close();
    }
  });

  it('§8 the 429 carries retry-after in whole seconds and the detail of format 3', async () => {
    const clock = manualClock();
    const s = await sandbox({ rate: 10, now: clock.now });
    await burst(s, 10);
    const res = await s.call('POST', 'events/', { user_id: 1, name: 'x' });
    expect(res.status).toBe(429);
    expect(res.headers.get('retry-after')).toBe('1');
    expect(res.body).toEqual({ detail: 'Request was throttled. Expected available in 1 second.' });
  });

  it('§8 the header name is lowercase on the wire', async () => {
    const clock = manualClock();
    const s = await sandbox({ rate: 1, now: clock.now });
    await burst(s, 1);
    const { status, raw } = await rawHeaders(new URL('events/', s.url).href);
    expect(status).toBe(429);
    expect(raw).toContain('retry-after');
    expect(raw).not.toContain('Retry-After');
  });

  it('§8 the window slides: a request is let through once the oldest of the last second is one second old', async () => {
    const clock = manualClock();
    const s = await sandbox({ rate: 10, now: clock.now });
    const statuses: number[] = [];
    for (let i = 0; i < 10; i++) {
      statuses.push((await s.call('GET', 'events/')).status);
      clock.advance(90); // 10 requests over 0..810 ms
    }
    statuses.push((await s.call('GET', 'events/')).status); // at 900 ms: 10 in the window
    clock.advance(99); // 999 ms: the first is 999 ms old, still in
    statuses.push((await s.call('GET', 'events/')).status);
    clock.advance(1); // 1000 ms: the first is out
    statuses.push((await s.call('GET', 'events/')).status);
    statuses.push((await s.call('GET', 'events/')).status); // the slot is taken again
    expect(statuses).toEqual([...Array(10).fill(200), 429, 429, 200, 429]);
  });

  it('§8 a steady client at the limit never sees a 429; a 429 does not count against the window', async () => {
    const clock = manualClock();
    const s = await sandbox({ rate: 10, now: clock.now });
    const statuses: number[] = [];
    for (let i = 0; i < 50; i++) {
      statuses.push((await s.call('GET', 'events/')).status);
      clock.advance(100);
    }
    expect(statuses.every((x) => x === 200)).toBe(true);
    await burst(s, 10);
    expect(await burst(s, 5)).toEqual(Array(5).fill(429));
    clock.advance(1000);
    expect(await burst(s, 1)).toEqual([200]);
  });

  it('§8 every endpoint counts against one window per key', async () => {
    const clock = manualClock();
    const s = await sandbox({ rate: 3, now: clock.now });
    const statuses = [
      (await s.call('POST', 'users/update_or_create/', { custom_id: 'C-1' })).status,
      (await s.call('POST', 'events/', { user_id: 1, name: 'x' })).status,
      (await s.call('PATCH', 'webpush-campaign/1/', { name: 'y' })).status,
      (await s.call('POST', 'deals/', {})).status,
    ];
    expect(statuses).toEqual([201, 201, 200, 429]);
  });

  it('§8 a throttled write is not applied', async () => {
    const clock = manualClock();
    const s = await sandbox({ rate: 1, now: clock.now });
    await s.call('POST', 'deals/', {});
    expect((await s.call('POST', 'deals/', {})).status).toBe(429);
    expect(s.state.deals()).toHaveLength(1);
    expect(s.requests.map((r) => [r.status, r.applied])).toEqual([
      [201, true],
      [429, false],
    ]);
  });

  it('§8 auth comes first: requests without the key are 401 and are not counted', async () => {
    const clock = manualClock();
    const s = await sandbox({ rate: 1, now: clock.now });
    for (let i = 0; i < 3; i++)
      expect((await s.call('GET', 'events/', undefined, { headers: { Authorization: '' } })).status).toBe(401);
    expect(await burst(s, 2)).toEqual([200, 429]);
  });

  it('--rate 0 turns the limit off', async () => {
    const s = await sandbox({ rate: 0 });
    const statuses = await Promise.all(
      Array.from({ length: 100 }, () => s.call('GET', 'events/').then((r) => r.status)),
    );
    expect(statuses.every((x) => x === 200)).toBe(true);
  });

  it('the limit can be switched while running (PATCH /__sandbox/faults)', async () => {
    const clock = manualClock();
    const s = await sandbox({ rate: 0, now: clock.now });
    expect((await s.admin('PATCH', 'faults', { rate: 2 })).body).toMatchObject({ rate: 2 });
    expect(await burst(s, 3)).toEqual([200, 200, 429]);
    await s.admin('PATCH', 'faults', { rate: 0 });
    expect(await burst(s, 3)).toEqual([200, 200, 200]);
  });
});
