/** Seeded faults (`--latency-ms`, `--jitter-ms`, `--fail-rate`, `--drop-rate`, `--seed`) and where they apply. */
import { describe, expect, it } from 'vitest';
import { manualClock, sandbox, TEST_KEY, users, type TestSandbox } from './_helpers.js';

/** A sleep that records the delay asked for and returns at once: no test waits real time. */
function recordingSleep() {
  const delays: number[] = [];
  const sleep = (ms: number): Promise<void> => {
    delays.push(ms);
    return Promise.resolve();
  };
  return { delays, sleep };
}

async function post(s: TestSandbox, i: number): Promise<number | 'dropped'> {
  try {
    return (await s.call('POST', 'users/update_or_create/', { custom_id: `C-${i}` })).status;
  } catch {
    return 'dropped';
  }
}

describe('latency and jitter', () => {
  it('--latency-ms 150 --jitter-ms 50 delays every answer by 100–200 ms, the same sequence for the same seed', async () => {
    const runs: number[][] = [];
    for (const seed of [42, 42, 43]) {
      const { delays, sleep } = recordingSleep();
      const s = await sandbox({ latencyMs: 150, jitterMs: 50, seed, sleep });
      for (let i = 0; i < 30; i++) await s.call('GET', 'events/');
      runs.push(delays);
    }
    expect(runs[0]).toHaveLength(30);
    expect(Math.min(...runs[0]!)).toBeGreaterThanOrEqual(100);
    expect(Math.max(...runs[0]!)).toBeLessThanOrEqual(200);
    expect(runs[1]).toEqual(runs[0]);
    expect(runs[2]).not.toEqual(runs[0]);
  });

  it('latency delays refusals too (401, 404, 429): the network is slow for every answer', async () => {
    const { delays, sleep } = recordingSleep();
    const s = await sandbox({ latencyMs: 80, sleep, rate: 1, now: manualClock().now });
    await s.call('GET', 'events/');
    await s.call('GET', 'events/');
    await s.call('GET', 'events/', undefined, { headers: { Authorization: '' } });
    await s.call('GET', 'nowhere/');
    expect(s.requests.map((r) => r.status)).toEqual([200, 429, 401, 404]);
    expect(delays).toEqual([80, 80, 80, 80]);
  });

  it('the write happens when the request arrives; the answer waits for the latency', async () => {
    let release!: () => void;
    const s = await sandbox({ latencyMs: 1000, sleep: () => new Promise<void>((r) => (release = r)) });
    const pending = s.call('POST', 'users/update_or_create/', { custom_id: 'C-1' });
    while (s.requests.length === 0) await new Promise((r) => setImmediate(r));
    expect(s.state.users()).toHaveLength(1);
    release();
    expect((await pending).status).toBe(201);
  });

  it('no latency, no sleep at all', async () => {
    const { delays, sleep } = recordingSleep();
    const s = await sandbox({ sleep });
    await s.call('GET', 'events/');
    expect(delays).toEqual([]);
  });
});

describe('--fail-rate: 500s, half before the write, half after', () => {
  it('before: not applied; after: applied, but the client sees a 500', async () => {
    const s = await sandbox({ failRate: 1, seed: 42 });
    const statuses = [];
    for (let i = 0; i < 40; i++) statuses.push(await post(s, i));
    expect(statuses.every((x) => x === 500)).toBe(true);
    const before = s.requests.filter((r) => r.fault === 'fail-before');
    const after = s.requests.filter((r) => r.fault === 'fail-after');
    expect(before.length + after.length).toBe(40);
    expect(before.length).toBeGreaterThan(10);
    expect(after.length).toBeGreaterThan(10);
    expect(before.every((r) => r.status === 500 && !r.applied)).toBe(true);
    expect(after.every((r) => r.status === 500 && r.applied)).toBe(true);
    expect(
      s.state
        .users()
        .map((u) => u.custom_id)
        .sort(),
    ).toEqual(after.map((r) => (r.body as { custom_id: string }).custom_id).sort());
  });

  it('--fail-rate 0.25 fails about a quarter of the requests, the same ones for the same seed', async () => {
    const runs: (number | 'dropped')[][] = [];
    for (const seed of [7, 7]) {
      const s = await sandbox({ failRate: 0.25, seed });
      const statuses: (number | 'dropped')[] = [];
      for (let i = 0; i < 200; i++) statuses.push(await post(s, i));
      runs.push(statuses);
    }
    const failed = runs[0]!.filter((x) => x === 500).length;
    expect(failed).toBeGreaterThan(30);
    expect(failed).toBeLessThan(70);
    expect(runs[1]).toEqual(runs[0]);
  });

  it('an update_or_create retried after a 500 is applied once, as the idempotency rule promises', async () => {
    const s = await sandbox({ failRate: 1 });
    await post(s, 1);
    s.setFaults({ failRate: 0 });
    expect(await post(s, 1)).toBeLessThan(300);
    expect(s.state.users()).toHaveLength(1);
  });
});

describe('--drop-rate: the connection is closed without an answer, after the write', () => {
  it('the client gets a network error; the log says status null and applied true; the record exists', async () => {
    const s = await sandbox({ dropRate: 1 });
    await expect(s.call('POST', 'users/update_or_create/', { custom_id: 'C-1' })).rejects.toThrow(TypeError);
    expect(s.requests).toEqual([
      {
        time: expect.any(String),
        method: 'POST',
        path: '/api/public/users/update_or_create/',
        status: null,
        applied: true,
        body: { custom_id: 'C-1' },
        fault: 'drop',
      },
    ]);
    expect(s.state.users().map((u) => u.custom_id)).toEqual(['C-1']);
    // The sandbox goes on serving after the drop.
    s.setFaults({ dropRate: 0 });
    expect((await s.call('GET', 'events/')).status).toBe(200);
  });

  it('a request that fails validation is dropped too, with nothing applied', async () => {
    const s = await sandbox({ dropRate: 1 });
    await expect(s.call('POST', 'events/', { user_id: 999, name: 'x' })).rejects.toThrow();
    expect(s.requests[0]).toMatchObject({ status: null, applied: false, fault: 'drop' });
  });
});

describe('faults apply to API requests that reach an endpoint, never to 401, 429 or 404 decisions', () => {
  it('with --fail-rate 1 and --drop-rate 0: no key is still a 401, the limit still a 429, an unknown path still a 404', async () => {
    const clock = manualClock();
    const s = await sandbox({ failRate: 1, rate: 1, now: clock.now });
    expect(
      (await s.call('GET', 'events/', undefined, { headers: { Authorization: `Token ${TEST_KEY.replace('C', 'D')}` } }))
        .status,
    ).toBe(401);
    expect((await s.call('GET', 'nowhere/')).status).toBe(404);
    expect((await s.call('GET', 'events/')).status).toBe(500);
    expect((await s.call('GET', 'events/')).status).toBe(429);
    expect(s.requests.map((r) => r.fault)).toEqual([null, null, expect.stringMatching(/^fail-/), null]);
  });

  it('the admin endpoints never fail', async () => {
    const s = await sandbox({ failRate: 0.5, dropRate: 0.5 });
    for (let i = 0; i < 10; i++) expect((await s.admin('GET', 'state')).status).toBe(200);
  });
});

describe('PATCH /__sandbox/faults switches faults while running', () => {
  it('answers the settings in force; a bad value is a 400 and changes nothing', async () => {
    const s = await sandbox();
    await users(s, 'C-1');
    expect((await s.admin('GET', 'faults')).body).toEqual({
      rate: 0,
      latencyMs: 0,
      jitterMs: 0,
      failRate: 0,
      dropRate: 0,
    });
    expect((await s.admin('PATCH', 'faults', { failRate: 1, latencyMs: 5 })).body).toEqual({
      rate: 0,
      latencyMs: 5,
      jitterMs: 0,
      failRate: 1,
      dropRate: 0,
    });
    expect((await s.call('GET', 'events/')).status).toBe(500);
    const bad = await s.admin('PATCH', 'faults', { failRate: 0.8, dropRate: 0.5 });
    expect(bad).toMatchObject({ status: 400, body: { detail: 'failRate + dropRate: must be at most 1 (got 1.3)' } });
    expect((await s.admin('PATCH', 'faults', { latency: 5 })).body).toEqual({
      detail: '(body): Unrecognized key: "latency"',
    });
    expect(s.faults()).toEqual({ rate: 0, latencyMs: 5, jitterMs: 0, failRate: 1, dropRate: 0 });
    await s.admin('PATCH', 'faults', { failRate: 0, latencyMs: 0 });
    expect((await s.call('GET', 'events/')).status).toBe(200);
  });

  it('in code: setFaults() with the same checks', async () => {
    const s = await sandbox();
    expect(s.setFaults({ dropRate: 0.1 })).toMatchObject({ dropRate: 0.1 });
    expect(() => s.setFaults({ failRate: 2 })).toThrow('sandbox faults: failRate: Too big: expected number to be <=1');
  });
});
