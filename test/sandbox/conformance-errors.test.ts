/** docs/api-contract.md R-BASE-2, R-BASE-3 (common rules), R-ERR-1, R-ERR-2 (the three formats, the parser rule), R-ERR-3 (status codes). */
import { describe, expect, it } from 'vitest';
import { manualClock, products, sandbox, users, type TestSandbox } from './_helpers.js';

/** A request per row of §7.1, on a sandbox where it gets that status. */
const STATUS_ROWS: readonly [number, string, (s: TestSandbox) => Promise<number>][] = [
  [200, 'Success (GET /events/)', async (s) => (await s.call('GET', 'events/')).status],
  [201, 'Success (POST /events/)', async (s) => (await s.call('POST', 'events/', { user_id: 1, name: 'x' })).status],
  [400, 'Validation error', async (s) => (await s.call('POST', 'events/', { user_id: 1 })).status],
  [
    401,
    'Unauthorized',
    async (s) => (await s.call('GET', 'events/', undefined, { headers: { Authorization: 'Token nope' } })).status,
  ],
  [
    404,
    'Referenced entity does not exist',
    async (s) => (await s.call('POST', 'users-by-id/NOPE/events/', { name: 'x' })).status,
  ],
  [
    429,
    'Rate limited',
    async (s) => {
      s.setFaults({ rate: 1 });
      await s.call('GET', 'events/');
      return (await s.call('GET', 'events/')).status;
    },
  ],
  [
    500,
    'Server error',
    async (s) => {
      s.setFaults({ failRate: 1 });
      return (await s.call('GET', 'events/')).status;
    },
  ],
];

describe('R-ERR-3 status codes', () => {
  it.each(STATUS_ROWS)('§7.1 %i: %s', async (status, _meaning, send) => {
    const s = await sandbox({ now: manualClock().now });
    await users(s, 'C-1');
    expect(await send(s)).toBe(status);
  });

  it("§7.1 the 500 body (R-ERR-5: not published) is the framework's HTML error page, not JSON", async () => {
    const s = await sandbox({ failRate: 1 });
    const res = await s.call('GET', 'events/');
    expect(res.status).toBe(500);
    expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(res.text).toContain('<h1>Server Error (500)</h1>');
  });
});

describe('R-ERR-1: three error formats', () => {
  it('§7 format 1, flat field errors: deals (POST /deals/ and update_or_create)', async () => {
    const s = await sandbox();
    for (const path of ['deals/', 'deals/update_or_create/']) {
      const res = await s.call('POST', path, { custom_id: 'D-1', status: 9, pipeline: 9 });
      expect(res.body).toEqual({
        status: ['"9" is not a valid choice.'],
        pipeline: ['Invalid pk "9" - object does not exist.'],
      });
    }
  });

  it('§7 format 2, nested errors: POST /events/', async () => {
    const s = await sandbox();
    expect((await s.call('POST', 'events/', { name: 'x' })).body).toEqual({
      errors: { user_id: ['This field is required.'] },
    });
  });

  it('§7 format 3, detail string: user-scoped endpoint, product not found, throttling', async () => {
    const s = await sandbox({ now: manualClock().now });
    await users(s, 'C-1');
    expect((await s.call('POST', 'users-by-id/NOPE/events/', { name: 'x' })).body).toEqual({
      detail: 'No ClientUser matches the given query.',
    });
    expect((await s.call('POST', 'products-by-id/NOPE/product_event/', {})).body).toEqual({
      detail: "Couldn't find product with custom_id = NOPE",
    });
    s.setFaults({ rate: 1 });
    await s.call('GET', 'events/');
    expect((await s.call('GET', 'events/')).body).toEqual({
      detail: 'Request was throttled. Expected available in 1 second.',
    });
  });

  it('§7 every JSON error body is one of the three: detail, errors, or field lists at the root', async () => {
    const s = await sandbox();
    await users(s, 'C-1');
    await products(s, 'SKU-1');
    const bodies = [
      (await s.call('POST', 'deals/', { status: 9 })).body,
      (await s.call('POST', 'events/', { user_id: 1 })).body,
      (await s.call('POST', 'users-by-id/X/events/', {})).body,
      (await s.call('POST', 'products-by-id/SKU-1/product_event/', { user_id: 9 })).body,
      (await s.call('POST', 'products-by-id/SKU-1/product_event/', { user_custom_id: 'C-1' })).body,
      (await s.call('PATCH', 'webpush-campaign/1/', { ttl: 'x' })).body,
      (await s.call('POST', 'products/', {})).body,
      (await s.call('POST', 'users/update_or_create/', {})).body,
      (await s.call('GET', 'nowhere/')).body,
    ];
    for (const body of bodies) {
      if ('detail' in body) expect(Object.keys(body)).toEqual(['detail']);
      else if ('errors' in body) expect(Object.keys(body)).toEqual(['errors']);
      else for (const value of Object.values(body)) expect(Array.isArray(value)).toBe(true);
    }
  });
});

describe('R-BASE-2, R-BASE-3: common rules', () => {
  it('§4 bodies are JSON: a malformed body → 400 {"detail": "JSON parse error - …"}, nothing written', async () => {
    const s = await sandbox();
    const res = await s.call('POST', 'deals/', undefined, { rawBody: '{"name": "x",}' });
    expect(res.status).toBe(400);
    expect(Object.keys(res.body)).toEqual(['detail']);
    expect(res.body.detail).toMatch(/^JSON parse error - ./);
    expect(s.state.deals()).toEqual([]);
    expect(s.requests[0]).toMatchObject({ status: 400, applied: false, body: null });
  });

  it('§7.2 rule 3, §7.3: the product or user a path names is looked up before the body is read: 404 first', async () => {
    const s = await sandbox();
    const bad = { rawBody: '{bad' };
    const plain = { rawBody: '{}', headers: { 'Content-Type': 'text/plain' } };
    for (const options of [bad, plain]) {
      const product = await s.call('POST', 'products-by-id/nope/product_event/', undefined, options);
      expect([product.status, product.body]).toEqual([404, { detail: "Couldn't find product with custom_id = nope" }]);
      const slashed = await s.call('POST', 'product-event-creation/no/pe/', undefined, options);
      expect([slashed.status, slashed.body]).toEqual([404, { detail: "Couldn't find product with custom_id = no/pe" }]);
      const user = await s.call('POST', 'users-by-id/nope/events/', undefined, options);
      expect([user.status, user.body]).toEqual([404, { detail: 'No ClientUser matches the given query.' }]);
    }
    // A path naming nothing to look up still refuses the body itself.
    expect((await s.call('POST', 'events/', undefined, bad)).status).toBe(400);
  });

  it('§4 a body sent without Content-Type: application/json → 415', async () => {
    const s = await sandbox();
    const res = await s.call('POST', 'deals/', undefined, { rawBody: '{}', headers: { 'Content-Type': 'text/plain' } });
    expect(res.status).toBe(415);
    expect(res.body).toEqual({ detail: 'Unsupported media type "text/plain" in request.' });
  });

  it('§4 Content-Type with a charset is fine; an empty body is empty data', async () => {
    const s = await sandbox();
    expect(
      (
        await s.call('POST', 'deals/', undefined, {
          rawBody: '{}',
          headers: { 'Content-Type': 'application/json; charset=utf-8' },
        })
      ).status,
    ).toBe(201);
    expect((await s.call('POST', 'deals/', undefined, { rawBody: '' })).status).toBe(201);
  });

  it.each([
    ['a path that is no endpoint', 'campaigns/'],
    ['an endpoint without its trailing slash (§4: paths end with a slash)', 'events'],
    ['a deeper path', 'events/1/'],
    ['a bulk path that is not the upload (deals/import/ is)', 'deals/bulk_import/'],
    ['a malformed percent-encoding', 'users-by-id/%E0%A4%A/events/'],
  ])('under /api/public/, %s → 404 {"detail":"Not found."}', async (_case, path) => {
    const s = await sandbox();
    const res = await s.call('POST', path, {});
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ detail: 'Not found.' });
  });

  it('the path is resolved before auth: an unknown path is a 404 even without the key', async () => {
    const s = await sandbox();
    expect((await s.call('GET', 'nowhere/', undefined, { headers: { Authorization: '' } })).status).toBe(404);
    expect((await s.call('GET', 'events/', undefined, { headers: { Authorization: '' } })).status).toBe(401);
  });

  it('outside /api/public/ and /__sandbox/ → 404, not in the request log', async () => {
    const s = await sandbox();
    const res = await fetch(new URL('/api/private/events/', s.url));
    expect(res.status).toBe(404);
    expect(s.requests).toEqual([]);
  });

  it.each([
    ['GET', 'deals/', 'POST'],
    ['DELETE', 'deals/1/', 'PATCH, PUT'],
    ['GET', 'deals/update_or_create/', 'POST'],
    ['PATCH', 'events/', 'GET, POST'],
  ])('a method the endpoint does not take: %s %s → 405 with Allow', async (method, path, allow) => {
    const s = await sandbox();
    const res = await s.call(method, path, method === 'GET' ? undefined : {});
    expect(res.status).toBe(405);
    expect(res.body).toEqual({ detail: `Method "${method}" not allowed.` });
    expect(res.headers.get('allow')).toBe(allow);
  });

  it('a request body over 16 MiB → 413', async () => {
    const s = await sandbox();
    const res = await s.call('POST', 'deals/', undefined, {
      rawBody: JSON.stringify({ name: 'x'.repeat(17 * 1024 * 1024) }),
    });
    expect(res.status).toBe(413);
  });
});
