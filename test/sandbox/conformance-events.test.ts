/** docs/api-contract.md R-EVENT-1 … R-EVENT-7, R-IDEM-2, R-IDEM-5. */
import { describe, expect, it } from 'vitest';
import { sandbox, users, type TestSandbox } from './_helpers.js';

async function allPages(s: TestSandbox): Promise<{ pages: any[]; names: string[] }> {
  const pages: any[] = [];
  let next: string | null = new URL('events/', s.url).href;
  while (next !== null) {
    const res = await fetch(next, { headers: { Authorization: `Token ${s.apiKey}` } });
    const page = (await res.json()) as { next: string | null };
    pages.push(page);
    next = page.next;
  }
  return { pages, names: pages.flatMap((p) => p.results.map((r: { name: string }) => r.name)) };
}

describe('R-EVENT-1 POST /events/', () => {
  it('§4.5 creates an occurrence: 201 {id, created}; §3 created is true only for the first occurrence of a name', async () => {
    const s = await sandbox();
    await users(s, 'C-1', 'C-2');
    const answers = [];
    for (const [user_id, name] of [
      [1, 'Signup'],
      [2, 'Signup'],
      [1, 'Login'],
      [1, 'Signup'],
    ] as const)
      answers.push(await s.call('POST', 'events/', { user_id, name }));
    expect(answers.map((a) => [a.status, a.body])).toEqual([
      [201, { id: 1, created: true }],
      [201, { id: 2, created: false }],
      [201, { id: 3, created: true }],
      [201, { id: 4, created: false }],
    ]);
  });

  it('§2.5 data and timestamp are kept; R-IDEM-2: not idempotent, the same row twice is two occurrences', async () => {
    const s = await sandbox();
    await users(s, 'C-1');
    const body = { user_id: 1, name: 'Order Placed', data: { row: 'R-1', amount: 12.5 }, timestamp: 1767604364 };
    await s.call('POST', 'events/', body);
    await s.call('POST', 'events/', body);
    expect(s.state.eventOccurrences().map(({ created_at: _, ...o }) => o)).toEqual([
      {
        id: 1,
        event_id: 1,
        name: 'Order Placed',
        user_id: 1,
        data: { row: 'R-1', amount: 12.5 },
        timestamp: 1767604364,
      },
      {
        id: 2,
        event_id: 1,
        name: 'Order Placed',
        user_id: 1,
        data: { row: 'R-1', amount: 12.5 },
        timestamp: 1767604364,
      },
    ]);
    expect(
      s.requests.filter((r) => (r.body as { data?: { row?: string } }).data?.row === 'R-1' && r.applied),
    ).toHaveLength(2);
  });

  it('§7.3 user_id that does not exist → 400, format 2: user_id "Client user with ID \'<id>\' does not exist"', async () => {
    const s = await sandbox();
    const res = await s.call('POST', 'events/', { user_id: 999, name: 'Signup' });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ errors: { user_id: ["Client user with ID '999' does not exist"] } });
  });

  it('§7.3 missing name → 400, format 2: name "This field is required."', async () => {
    const s = await sandbox();
    await users(s, 'C-1');
    const res = await s.call('POST', 'events/', { user_id: 1 });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ errors: { name: ['This field is required.'] } });
  });

  it.each([
    ['unknown user and missing name', { user_id: 999 }, { user_id: ["Client user with ID '999' does not exist"] }],
    [
      'unknown user and every other field wrong',
      { user_id: 999, name: '', data: 5, timestamp: 'noon' },
      { user_id: ["Client user with ID '999' does not exist"] },
    ],
    ['no user_id and no name', {}, { user_id: ['This field is required.'] }],
    ['user_id null', { user_id: null, name: 'x' }, { user_id: ['This field may not be null.'] }],
    ['user_id not a number', { user_id: 'C-1', name: 'x' }, { user_id: ['A valid integer is required.'] }],
  ])('§7.2 rule 1: the user is validated first, alone (%s)', async (_case, body, errors) => {
    const s = await sandbox();
    const res = await s.call('POST', 'events/', body);
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ errors });
  });

  it('§7.2 rule 1: once the user exists, the other fields are reported, all together', async () => {
    const s = await sandbox();
    await users(s, 'C-1');
    const res = await s.call('POST', 'events/', { user_id: '1', name: '  ', data: [1], timestamp: 1.5 });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({
      errors: {
        name: ['This field may not be blank.'],
        data: ['Expected a dictionary of items but got type "list".'],
        timestamp: ['A valid integer is required.'],
      },
    });
    expect(s.state.eventOccurrences()).toEqual([]);
  });

  it('§6 an event requires an existing contact: after POST /users/update_or_create/ the same event succeeds', async () => {
    const s = await sandbox();
    expect((await s.call('POST', 'events/', { user_id: 1, name: 'Signup' })).status).toBe(400);
    await users(s, 'C-1');
    expect((await s.call('POST', 'events/', { user_id: 1, name: 'Signup' })).status).toBe(201);
  });
});

describe('R-EVENT-2 POST /users-by-id/:user_custom_id/events/', () => {
  it('§4.6 creates an occurrence for the user named by custom id: 201 {id, created}', async () => {
    const s = await sandbox();
    await users(s, 'C-10001');
    const res = await s.call('POST', 'users-by-id/C-10001/events/', {
      name: 'trail_club_signup',
      timestamp: 1767604364,
      data: { plan: 'family' },
    });
    expect(res).toMatchObject({ status: 201, body: { id: 1, created: true } });
    expect(s.state.eventOccurrences()[0]).toMatchObject({ user_id: 1, name: 'trail_club_signup' });
  });

  it.each([
    ['a valid body', { name: 'x' }],
    ['a missing name', {}],
    ['a body that is not an object', [1]],
  ])('§7.3 user not found → 404, format 3 "No ClientUser matches the given query." (with %s)', async (_case, body) => {
    const s = await sandbox();
    const res = await s.call('POST', 'users-by-id/C-10999/events/', body);
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ detail: 'No ClientUser matches the given query.' });
  });

  it('§7.2 rule 1: after the user, field errors use format 2 as on /events/', async () => {
    const s = await sandbox();
    await users(s, 'C-1');
    const res = await s.call('POST', 'users-by-id/C-1/events/', { data: 'x' });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({
      errors: { name: ['This field is required.'], data: ['Expected a dictionary of items but got type "str".'] },
    });
  });

  it('path segments arrive percent-encoded and are decoded', async () => {
    const s = await sandbox();
    await users(s, 'Zoë Smith+1');
    const res = await s.call('POST', `users-by-id/${encodeURIComponent('Zoë Smith+1')}/events/`, { name: 'x' });
    expect(res.status).toBe(201);
  });

  it('a custom id with "/" cannot be carried in the path (decoded, it is another path): 404 Not found', async () => {
    const s = await sandbox();
    await users(s, 'A/B');
    const res = await s.call('POST', 'users-by-id/A%2FB/events/', { name: 'x' });
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ detail: 'Not found.' });
  });
});

describe('R-EVENT-6 GET /events/', () => {
  it('§4.4 an empty account: {count: 0, next: null, previous: null, results: []}', async () => {
    const s = await sandbox();
    const res = await s.call('GET', 'events/');
    expect(res).toMatchObject({ status: 200, body: { count: 0, next: null, previous: null, results: [] } });
  });

  it('§2.4 definitions are the distinct names of created events plus the fixtures, {id, name}', async () => {
    const s = await sandbox({ fixtures: { events: ['Newsletter', 'Signup'] } });
    await users(s, 'C-1');
    for (const name of ['Signup', 'Login', 'Login', 'Order']) await s.call('POST', 'users-by-id/C-1/events/', { name });
    const res = await s.call('GET', 'events/');
    expect(res.body).toEqual({
      count: 4,
      next: null,
      previous: null,
      results: [
        { id: 1, name: 'Newsletter' },
        { id: 2, name: 'Signup' },
        { id: 3, name: 'Login' },
        { id: 4, name: 'Order' },
      ],
    });
  });

  it('§3 a name given in the fixtures already exists: its first occurrence answers created false', async () => {
    const s = await sandbox({ fixtures: { events: ['Signup'] } });
    await users(s, 'C-1');
    expect((await s.call('POST', 'events/', { user_id: 1, name: 'Signup' })).body.created).toBe(false);
  });

  it('§4.4 / R-EVENT-6: 100 a page, next and previous as full URLs, followed until next is null', async () => {
    const names = Array.from({ length: 250 }, (_, i) => `Event ${String(i).padStart(3, '0')}`);
    const s = await sandbox({ fixtures: { events: names } });
    const base = new URL('events/', s.url).href;
    const { pages, names: listed } = await allPages(s);
    expect(pages.map((p) => [p.count, p.results.length, p.previous, p.next])).toEqual([
      [250, 100, null, `${base}?page=2`],
      [250, 100, base, `${base}?page=3`],
      [250, 50, `${base}?page=2`, null],
    ]);
    expect(listed).toEqual(names);
  });

  it.each(['0', '4', 'x', '-1'])('a page that does not exist (?page=%s) → 404 "Invalid page."', async (page) => {
    const s = await sandbox({ fixtures: { events: Array.from({ length: 250 }, (_, i) => `E${i}`) } });
    const res = await s.call('GET', `events/?page=${page}`);
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ detail: 'Invalid page.' });
  });

  it('the links point where the client connected (the Host it sent)', async () => {
    const s = await sandbox({ fixtures: { events: Array.from({ length: 101 }, (_, i) => `E${i}`) } });
    const res = await fetch(`http://localhost:${s.port}/api/public/events/`, {
      headers: { Authorization: `Token ${s.apiKey}` },
    });
    expect(((await res.json()) as { next: string }).next).toBe(`http://localhost:${s.port}/api/public/events/?page=2`);
  });
});
