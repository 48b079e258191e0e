/** docs/api-contract.md R-AUTH-1 … R-AUTH-4 (and R-BASE-4: the version header is not enforced). */
import { describe, expect, it } from 'vitest';
import { startSandbox } from '../../src/sandbox/index.js';
import { sandbox, TEST_KEY } from './_helpers.js';

/** One request per endpoint of §4 and §4.6 (bulk CSV excluded). */
const ENDPOINTS: readonly [string, string][] = [
  ['PATCH', 'webpush-campaign/1/'],
  ['PATCH', 'deals/1/'],
  ['PUT', 'deals/1/'],
  ['POST', 'deals/'],
  ['POST', 'deals/update_or_create/'],
  ['POST', 'users/update_or_create/'],
  ['POST', 'products/'],
  ['GET', 'events/'],
  ['POST', 'events/'],
  ['POST', 'users-by-id/C-1/events/'],
  ['POST', 'products-by-id/SKU-1/product_event/'],
  ['POST', 'product-event-creation/SKU/1/'],
];

describe('R-AUTH-1: Authorization: Token <64-character key>', () => {
  it.each(ENDPOINTS)('§5 missing credentials → 401 on %s %s, before any validation', async (method, path) => {
    const s = await sandbox();
    const res = await s.call(method, path, method === 'GET' ? undefined : { bad: 'body' }, {
      headers: { Authorization: '' },
    });
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ detail: 'Authentication credentials were not provided.' });
    expect(res.headers.get('www-authenticate')).toBe('Token');
  });

  it.each([
    ['a wrong key', `Token ${'x'.repeat(64)}`, 'Invalid token.'],
    ['the key with one character missing', `Token ${TEST_KEY.slice(1)}`, 'Invalid token.'],
    ['another scheme', `Bearer ${TEST_KEY}`, 'Authentication credentials were not provided.'],
    ['the key without a scheme', TEST_KEY, 'Authentication credentials were not provided.'],
    ['the scheme without a key', 'Token', 'Invalid token header. No credentials provided.'],
    ['a key with a space', `Token ${TEST_KEY} x`, 'Invalid token header. Token string should not contain spaces.'],
  ])('§5 wrong credentials (%s) → 401', async (_case, header, message) => {
    const s = await sandbox();
    const res = await s.call('GET', 'events/', undefined, { headers: { Authorization: header } });
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ detail: message });
  });

  it('§5 the right key is accepted, the scheme in any case', async () => {
    const s = await sandbox();
    expect((await s.call('GET', 'events/')).status).toBe(200);
    expect(
      (await s.call('GET', 'events/', undefined, { headers: { Authorization: `token ${TEST_KEY}` } })).status,
    ).toBe(200);
  });

  it('§5 a 401 changes nothing', async () => {
    const s = await sandbox();
    await s.call(
      'POST',
      'users/update_or_create/',
      { custom_id: 'C-1' },
      { headers: { Authorization: `Token ${'y'.repeat(64)}` } },
    );
    expect(s.state.users()).toEqual([]);
    expect(s.requests.map((r) => [r.status, r.applied])).toEqual([[401, false]]);
  });

  it('§9 the Accept version header is sent by clients but not enforced (R-BASE-4: behaviour when omitted is not published)', async () => {
    const s = await sandbox();
    expect((await s.call('GET', 'events/', undefined, { headers: { Accept: '' } })).status).toBe(200);
  });

  it('§5 a generated key is 64 characters, new for every sandbox; a given key must be 64 characters', async () => {
    const a = await startSandbox({ port: 0 });
    const b = await startSandbox({ port: 0 });
    try {
      expect(a.apiKey).toMatch(/^[0-9a-f]{64}$/);
      expect(b.apiKey).not.toBe(a.apiKey);
    } finally {
      await Promise.all([a.close(), b.close()]);
    }
    await expect(startSandbox({ port: 0, apiKey: 'SECRET' })).rejects.toThrow(
      'must be 64 visible ASCII characters without spaces (got 6 characters)',
    );
  });

  it('§5 the key never appears in an answer, the request log or the state', async () => {
    const s = await sandbox();
    const answers = await Promise.all([
      s.call('GET', 'events/'),
      s.call('POST', 'events/', { user_id: 1 }),
      s.call('GET', 'events/', undefined, { headers: { Authorization: `Token ${TEST_KEY.toLowerCase()}` } }),
      s.call('POST', 'nowhere/', {}),
    ]);
    const everything = JSON.stringify([
      answers.map((a) => [a.text, [...a.headers]]),
      (await s.admin('GET', 'requests')).body,
      (await s.admin('GET', 'state')).body,
    ]);
    expect(everything).not.toContain('CANARY');
    expect(everything).not.toContain('canary');
  });
});
