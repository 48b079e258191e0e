/** docs/api-contract.md R-DEAL-1 … R-DEAL-10, R-IDEM-1, R-IDEM-4, R-ORDER-5. */
import { describe, expect, it } from 'vitest';
import { manualClock, products, sandbox, users, type TestSandbox } from './_helpers.js';

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

/** The record of a deal created from `{}` at the manual clock's start. */
const EMPTY_DEAL = {
  id: 1,
  custom_id: null,
  activities_status: null,
  assigned_to: null,
  company_id: null,
  currency: null,
  expected_close_date: null,
  loss_reason: null,
  lost_at: null,
  name: '',
  participants: [],
  pipeline: null,
  products: [],
  products_custom_id: [],
  stage: null,
  status: 1,
  user_id: null,
  value: '0.00',
  won_at: null,
  user_custom_id: null,
  company_custom_id: null,
  order_products: [],
  restricted_to: null,
  agent: null,
  scope: 1,
  created_by: 1,
  created_at: '2026-01-05T09:00:00.123Z',
  updated_at: '2026-01-05T09:00:00.123Z',
  tags: [],
  loss_reason_description: '',
  custom_attribute_xyz: null,
};

async function world(): Promise<TestSandbox & { clock: ReturnType<typeof manualClock> }> {
  const clock = manualClock();
  const s = await sandbox({ now: clock.now });
  await users(s, 'C-1', 'C-2');
  await products(s, 'SKU-1', 'SKU/2024/RED');
  return Object.assign(s, { clock });
}

type Send = (body: Record<string, unknown>) => Promise<{ status: number; body: any }>;

/** The three deal writes that take a body: create, update_or_create (with a key) and update (of a deal made first). */
const WRITES: readonly [string, (s: TestSandbox) => Promise<Send>][] = [
  ['POST deals/', async (s) => (body) => s.call('POST', 'deals/', body)],
  [
    'POST deals/update_or_create/',
    async (s) => (body) => s.call('POST', 'deals/update_or_create/', { custom_id: 'D-1', ...body }),
  ],
  [
    'PATCH deals/:id/',
    async (s) => {
      const { id } = (await s.call('POST', 'deals/', {})).body;
      return (body) => s.call('PATCH', `deals/${id}/`, body);
    },
  ],
];

describe('R-DEAL-1, R-DEAL-2: deal records', () => {
  it('§2.3 a deal created from an empty JSON object has name "", value 0.00 and status 1; unset fields null; the full record', async () => {
    const s = await world();
    const res = await s.call('POST', 'deals/', {});
    expect(res.status).toBe(201);
    expect(res.body).toEqual(EMPTY_DEAL);
    expect(Object.keys(res.body)).toEqual(Object.keys(EMPTY_DEAL));
  });

  it('Call ordering rule 6: a deal is created even from an empty payload (no body at all, too)', async () => {
    const s = await world();
    const res = await s.call('POST', 'deals/', undefined);
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ name: '', value: '0.00', status: 1 });
  });

  it('§2.3 every accepted field, answered as the record shapes it: value a decimal string, references resolved both ways, custom attributes as extra keys', async () => {
    const s = await world();
    const res = await s.call('POST', 'deals/', {
      custom_id: 'D-2026-0001',
      name: 'Family camping set',
      user_custom_id: 'C-2',
      value: 826.9,
      currency: 'EUR',
      status: 2,
      pipeline: 1,
      stage: 2,
      products_custom_id: ['SKU/2024/RED'],
      expected_close_date: '2026-05-15',
      won_at: '2026-05-01T10:00:00+02:00',
      activities_status: 'planned',
      assigned_to: 5,
      company_id: 9,
      company_custom_id: 'ACME',
      loss_reason: 3,
      participants: [1],
      order_products: [{ product_custom_id: 'SKU-1', currency: 'EUR', value: '19.9', quantity: 2 }],
      lead_source: 'newsletter',
      description: 'sent by the request shape',
      tags: [{ id: 1, name: 'ignored: read-only' }],
      scope: 99,
    });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      ...EMPTY_DEAL,
      custom_id: 'D-2026-0001',
      name: 'Family camping set',
      user_id: 2,
      user_custom_id: 'C-2',
      value: '826.90',
      currency: 'EUR',
      status: 2,
      pipeline: 1,
      stage: 2,
      products: [2],
      products_custom_id: ['SKU/2024/RED'],
      expected_close_date: '2026-05-15',
      won_at: '2026-05-01T08:00:00.000Z',
      activities_status: 'planned',
      assigned_to: 5,
      company_id: 9,
      company_custom_id: 'ACME',
      loss_reason: 3,
      participants: [1],
      order_products: [{ product_id: 1, product_custom_id: 'SKU-1', currency: 'EUR', value: '19.90', quantity: 2 }],
      lead_source: 'newsletter',
      description: 'sent by the request shape',
    });
    expect(s.state.deals()).toEqual([res.body]);
  });

  it('§2.3 created_at and updated_at: ISO 8601 with fractional seconds and Z; an update moves updated_at only', async () => {
    const s = await world();
    const created = (await s.call('POST', 'deals/', { name: 'A' })).body;
    expect(created.created_at).toMatch(ISO);
    s.clock.advance(60_000);
    const updated = (await s.call('PATCH', `deals/${created.id}/`, { name: 'B' })).body;
    expect(updated.created_at).toBe('2026-01-05T09:00:00.123Z');
    expect(updated.updated_at).toBe('2026-01-05T09:01:00.123Z');
  });

  it.each(['PATCH', 'PUT'])('§4.2 %s deals/:id/ is a partial update: only the fields sent change', async (method) => {
    const s = await world();
    const { id } = (
      await s.call('POST', 'deals/', {
        name: 'A',
        value: 10,
        currency: 'PLN',
        lead_source: 'fair',
        custom_attribute_xyz: 'x',
      })
    ).body;
    const res = await s.call(method, `deals/${id}/`, { value: '12.5', lead_source: 'web' });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      id,
      name: 'A',
      value: '12.50',
      currency: 'PLN',
      lead_source: 'web',
      custom_attribute_xyz: 'x',
    });
  });

  it('§4.2 null clears an optional field', async () => {
    const s = await world();
    const { id } = (await s.call('POST', 'deals/', { user_id: 1, currency: 'EUR', pipeline: 1 })).body;
    const res = await s.call('PATCH', `deals/${id}/`, { user_id: null, currency: null, pipeline: null });
    expect(res.body).toMatchObject({ user_id: null, user_custom_id: null, currency: null, pipeline: null });
  });

  it.each([
    ['an unknown id', 'deals/999/'],
    ['an id that is not a number', 'deals/abc/'],
  ])('§4.2 %s → 404 {"detail":"Not found."}', async (_case, path) => {
    const s = await world();
    for (const method of ['PATCH', 'PUT']) {
      const res = await s.call(method, path, { name: 'x' });
      expect(res.status).toBe(404);
      expect(res.body).toEqual({ detail: 'Not found.' });
    }
  });

  it('PUT deals-by-id/:custom_id/ updates the oldest deal with that custom id, only the fields sent; none → 404, nothing created', async () => {
    const s = await world();
    const { id } = (await s.call('POST', 'deals/', { custom_id: 'D 1', name: 'A', value: 10 })).body;
    await s.call('POST', 'deals/', { custom_id: 'D 1', name: 'Second of the id' });
    const res = await s.call('PUT', `deals-by-id/${encodeURIComponent('D 1')}/`, { name: 'B' });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id, custom_id: 'D 1', name: 'B', value: '10.00' });
    const bad = await s.call('PUT', 'deals-by-id/D-1/', { value: 'ten' });
    expect(bad.status).toBe(404);
    const missing = await s.call('PUT', 'deals-by-id/D-9/', { name: 'x' });
    expect([missing.status, missing.body]).toEqual([404, { detail: 'Not found.' }]);
    expect(s.state.deals().map((d) => d.name)).toEqual(['B', 'Second of the id']);
  });

  it('§4.6 POST deals/update_or_create/ is keyed on custom_id: 201 then 200 on the same deal', async () => {
    const s = await world();
    const first = await s.call('POST', 'deals/update_or_create/', { custom_id: 'D-1', name: 'First', value: 10 });
    const second = await s.call('POST', 'deals/update_or_create/', { custom_id: 'D-1', name: 'Second' });
    expect([first.status, second.status]).toEqual([201, 200]);
    expect(second.body).toMatchObject({ id: first.body.id, name: 'Second', value: '10.00' });
    expect(s.state.deals()).toHaveLength(1);
  });

  it('Call ordering rule 5: update_or_create is safe to retry: the same request twice leaves one deal', async () => {
    const s = await world();
    const body = { custom_id: 'R-1', name: 'Deal 1', user_custom_id: 'C-1', value: 1.5 };
    await s.call('POST', 'deals/update_or_create/', body);
    await s.call('POST', 'deals/update_or_create/', body);
    expect(s.state.deals().map((d) => [d.custom_id, d.name, d.value])).toEqual([['R-1', 'Deal 1', '1.50']]);
  });

  it('§4.6 POST deals/ is not idempotent: the same body twice creates two deals', async () => {
    const s = await world();
    await s.call('POST', 'deals/', { custom_id: 'PL-1' });
    await s.call('POST', 'deals/', { custom_id: 'PL-1' });
    expect(s.state.deals().map((d) => d.id)).toEqual([1, 2]);
  });

  it.each([
    [{}, { custom_id: ['This field is required.'] }],
    [{ custom_id: '' }, { custom_id: ['This field may not be blank.'] }],
    [{ custom_id: null }, { custom_id: ['This field may not be null.'] }],
    [{ status: 9 }, { custom_id: ['This field is required.'], status: ['"9" is not a valid choice.'] }],
  ])('§4.6 update_or_create needs custom_id: %j → 400 %j', async (body, errors) => {
    const s = await world();
    const res = await s.call('POST', 'deals/update_or_create/', body);
    expect(res.status).toBe(400);
    expect(res.body).toEqual(errors);
  });
});

describe('R-DEAL-7 deal reference errors (flat format, status 400)', () => {
  const ROWS: readonly [string, Record<string, unknown>, Record<string, unknown>][] = [
    ['user_id', { user_id: 999 }, { user_id: ['Invalid pk "999" - object does not exist.'] }],
    [
      'user_custom_id',
      { user_custom_id: 'C-10099' },
      { user_custom_id: ['Object with custom_id=C-10099 does not exist.'] },
    ],
    ['products', { products: [1, 999] }, { products: ['Invalid pk "999" - object does not exist.'] }],
    [
      'products_custom_id',
      { products_custom_id: ['SKU-1', 'NOPE'] },
      { products_custom_id: ['Invalid custom_id "NOPE" - object does not exist.'] },
    ],
    [
      'order_products → product_id',
      { order_products: [{ product_id: 999, quantity: 1 }] },
      { order_products: [{ product_id: ["Could not find product with id '999'"] }] },
    ],
    [
      'order_products → product_custom_id',
      { order_products: [{ product_custom_id: 'SKU-1' }, { product_custom_id: 'NOPE' }] },
      { order_products: [{}, { product_custom_id: ["Could not find product with custom_id 'NOPE'"] }] },
    ],
    ['pipeline', { pipeline: 9 }, { pipeline: ['Invalid pk "9" - object does not exist.'] }],
    ['stage', { stage: 99 }, { stage: ['Invalid pk "99" - object does not exist.'] }],
    ['status invalid', { status: 7 }, { status: ['"7" is not a valid choice.'] }],
    ['participants', { participants: [2, 999] }, { participants: ['Invalid pk "999" - object does not exist.'] }],
  ];

  for (const [write, prepare] of WRITES) {
    it.each(ROWS)(`§7.4 ${write}: %s`, async (_ref, body, errors) => {
      const s = await world();
      const send = await prepare(s);
      const before = s.state.deals();
      const res = await send(body);
      expect(res.status).toBe(400);
      expect(res.body).toEqual(errors);
      expect(s.state.deals()).toEqual(before);
    });
  }

  it('§3 an invalid status is rejected with "is not a valid choice", for every value outside 0–4', async () => {
    const s = await world();
    for (const status of [-1, 5, 'pending', 1.5]) {
      const res = await s.call('POST', 'deals/', { status });
      expect(res.body.status[0]).toContain('is not a valid choice');
    }
    for (const status of [0, 1, 2, 3, 4]) expect((await s.call('POST', 'deals/', { status })).body.status).toBe(status);
  });

  it('§7.2 rule 2 / §4.2: all fields are validated together and every error is returned in one response', async () => {
    const s = await world();
    const res = await s.call('POST', 'deals/', {
      name: 'ok',
      user_custom_id: 'C-404',
      status: 'pending',
      currency: 'EURO',
      expected_close_date: '31.02.2026',
      stage: 99,
      order_products: [{ product_id: 999 }],
    });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({
      user_custom_id: ['Object with custom_id=C-404 does not exist.'],
      status: ['"pending" is not a valid choice.'],
      currency: ['"EURO" is not a valid choice.'],
      expected_close_date: ['Date has wrong format. Use one of these formats instead: YYYY-MM-DD.'],
      stage: ['Invalid pk "99" - object does not exist.'],
      order_products: [{ product_id: ["Could not find product with id '999'"] }],
    });
  });

  it.each([
    ['value', { value: 'abc' }, 'A valid number is required.'],
    ['value (Polish format)', { value: '1 249,50' }, 'A valid number is required.'],
    ['assigned_to', { assigned_to: 'x' }, 'A valid integer is required.'],
    ['company_id', { company_id: 1.5 }, 'A valid integer is required.'],
    [
      'expected_close_date',
      { expected_close_date: '2026/05/15' },
      'Date has wrong format. Use one of these formats instead: YYYY-MM-DD.',
    ],
    [
      'lost_at',
      { lost_at: 'yesterday' },
      'Datetime has wrong format. Use one of these formats instead: YYYY-MM-DDThh:mm[:ss[.uuuuuu]][+HH:MM|-HH:MM|Z].',
    ],
    ['currency', { currency: 'eur' }, '"eur" is not a valid choice.'],
    ['name', { name: null }, 'This field may not be null.'],
    ['name', { name: { first: 'x' } }, 'Not a valid string.'],
    ['participants', { participants: '1' }, 'Expected a list of items but got type "str".'],
    ['pipeline', { pipeline: 'one' }, 'Incorrect type. Expected pk value, received str.'],
    ['user_id', { user_id: true }, 'Incorrect type. Expected pk value, received bool.'],
    ['order_products', { order_products: {} }, 'Expected a list of items but got type "dict".'],
  ])('type errors use the framework wording: %s %j', async (field, body, message) => {
    const s = await world();
    const res = await s.call('POST', 'deals/', body);
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ [field.split(' ')[0]!]: [message] });
  });

  it('order product items: errors per item ({} for a valid one), and one of product_id / product_custom_id required', async () => {
    const s = await world();
    const res = await s.call('POST', 'deals/', {
      order_products: [{ product_id: 1, value: 'x', quantity: 'two' }, { quantity: 1 }, 'SKU-1'],
    });
    expect(res.body).toEqual({
      order_products: [
        { value: ['A valid number is required.'], quantity: ['A valid integer is required.'] },
        { product_id: ['Either product_id or product_custom_id is required.'] },
        { non_field_errors: ['Invalid data. Expected a dictionary, but got str.'] },
      ],
    });
  });

  it('a "__proto__" key in a body is ignored, not made a custom attribute', async () => {
    const s = await world();
    const res = await s.call('POST', 'deals/', undefined, {
      rawBody: '{"name": "x", "__proto__": {"polluted": true}, "status": 9}',
    });
    expect(res.body).toEqual({ status: ['"9" is not a valid choice.'] });
    const ok = await s.call('POST', 'deals/', undefined, { rawBody: '{"name": "x", "__proto__": {"polluted": true}}' });
    expect(ok.status).toBe(201);
    expect(ok.body.polluted).toBeUndefined();
    expect(Object.keys(ok.body)).toEqual(Object.keys(EMPTY_DEAL));
  });

  it('a body that is not a JSON object → 400 non_field_errors', async () => {
    const s = await world();
    const res = await s.call('POST', 'deals/', [1, 2]);
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ non_field_errors: ['Invalid data. Expected a dictionary, but got list.'] });
  });

  it('"When a product reference fails, create the product via POST /products/ and retry"', async () => {
    const s = await world();
    expect((await s.call('POST', 'deals/', { products_custom_id: ['NEW-1'] })).status).toBe(400);
    await products(s, 'NEW-1');
    const res = await s.call('POST', 'deals/', { products_custom_id: ['NEW-1'] });
    expect(res.status).toBe(201);
    expect(res.body.products_custom_id).toEqual(['NEW-1']);
  });
});
