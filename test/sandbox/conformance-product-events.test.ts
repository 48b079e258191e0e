/** docs/api-contract.md R-PEVT-1 … R-PEVT-6, R-IDEM-3. */
import { describe, expect, it } from 'vitest';
import { PRODUCT_EVENT_TYPES } from '../../src/sandbox/index.js';
import { products, sandbox, users, type TestSandbox } from './_helpers.js';

const BODY = {
  user_custom_id: 'C-1',
  event_type: 'order',
  timestamp: 1767604364,
  data: { quantity: 1, custom_data: { session: 's-7f3a' } },
};

async function world(): Promise<TestSandbox> {
  const s = await sandbox();
  await users(s, 'C-1');
  await products(s, 'TNT-2P-GRN', 'SKU/2024/RED');
  return s;
}

/** Both endpoints, for a product custom id without `/`. */
const ENDPOINTS: readonly [string, (id: string) => string][] = [
  ['standard', (id) => `products-by-id/${encodeURIComponent(id)}/product_event/`],
  ['alternative', (id) => `product-event-creation/${encodeURIComponent(id)}/`],
];

describe.each(ENDPOINTS)('R-PEVT-5 on the %s endpoint', (_name, path) => {
  it('§2.6 creates the product event: 201 {id}', async () => {
    const s = await world();
    const res = await s.call('POST', path('TNT-2P-GRN'), BODY);
    expect(res).toMatchObject({ status: 201, body: { id: 1 } });
    expect(s.state.productEvents()).toEqual([
      {
        id: 1,
        product_id: 1,
        product_custom_id: 'TNT-2P-GRN',
        user_id: 1,
        event_type: 'order',
        data: BODY.data,
        timestamp: 1767604364,
        created_at: expect.any(String),
      },
    ]);
  });

  it.each([
    ['a valid payload', BODY],
    ['an empty payload', {}],
    ['an unknown user and a bad event type', { user_id: 999, event_type: 'nope' }],
  ])(
    '§7.2 the product is validated first: unknown product → 404 "Couldn\'t find product with custom_id = <id>" (%s)',
    async (_case, body) => {
      const s = await world();
      const res = await s.call('POST', path('NOPE-1'), body);
      expect(res.status).toBe(404);
      expect(res.body).toEqual({ detail: "Couldn't find product with custom_id = NOPE-1" });
    },
  );

  it('§7.2 table: non-existent user_id → 400 "Client user with ID \'<user_id>\' does not exist"', async () => {
    const s = await world();
    const res = await s.call('POST', path('TNT-2P-GRN'), {
      ...BODY,
      user_custom_id: undefined,
      user_id: 999,
      event_type: 'bad',
    });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ detail: "Client user with ID '999' does not exist" });
  });

  it('§7.2 table: non-existent user_custom_id → 404 "user for given user_id not found"', async () => {
    const s = await world();
    const res = await s.call('POST', path('TNT-2P-GRN'), { ...BODY, user_custom_id: 'C-10999', event_type: 'bad' });
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ detail: 'user for given user_id not found' });
  });

  it('§2.6 user_id and user_custom_id are used alternatively; neither → 400', async () => {
    const s = await world();
    const { user_custom_id: _, ...noUser } = BODY;
    expect((await s.call('POST', path('TNT-2P-GRN'), { ...noUser, user_id: 1 })).status).toBe(201);
    const res = await s.call('POST', path('TNT-2P-GRN'), noUser);
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ user_id: ['Either user_id or user_custom_id is required.'] });
  });

  it('R-PEVT-4: event_type is a closed list; anything else → 400 "is not a valid choice"', async () => {
    const s = await world();
    const res = await s.call('POST', path('TNT-2P-GRN'), { ...BODY, event_type: 'add_to_cart' });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ event_type: ['"add_to_cart" is not a valid choice.'] });
  });

  it('§2.6 event_type, data and timestamp are required, reported together after the user', async () => {
    const s = await world();
    const res = await s.call('POST', path('TNT-2P-GRN'), { user_custom_id: 'C-1' });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({
      event_type: ['This field is required.'],
      data: ['This field is required.'],
      timestamp: ['This field is required.'],
    });
    const typed = await s.call('POST', path('TNT-2P-GRN'), {
      user_custom_id: 'C-1',
      event_type: 'view',
      data: 'x',
      timestamp: '2026-01-05',
    });
    expect(typed.body).toEqual({
      data: ['Expected a dictionary of items but got type "str".'],
      timestamp: ['A valid integer is required.'],
    });
  });

  it("R-PEVT-6: each product event overwrites the product's attributes with its data (not custom_data): the last one sent wins, whatever its timestamp", async () => {
    const s = await world();
    const newer = { ...BODY, timestamp: 1767700000, data: { price: 90, colour: 'green', custom_data: { n: 2 } } };
    const older = { ...BODY, timestamp: 1767600000, data: { price: 120, custom_data: { n: 1 } } };
    await s.call('POST', path('TNT-2P-GRN'), newer);
    await s.call('POST', path('TNT-2P-GRN'), older);
    const product = s.state.products().find((p) => p.custom_id === 'TNT-2P-GRN');
    expect(product?.attributes).toEqual({ price: 120, colour: 'green' });
  });

  it('R-IDEM-3: not idempotent, the same body twice is two product events', async () => {
    const s = await world();
    await s.call('POST', path('TNT-2P-GRN'), BODY);
    await s.call('POST', path('TNT-2P-GRN'), BODY);
    expect(s.state.productEvents()).toHaveLength(2);
  });
});

describe('R-PEVT-4: the 16 event types', () => {
  it.each([...PRODUCT_EVENT_TYPES])('%s is accepted', async (eventType) => {
    const s = await world();
    expect(
      (await s.call('POST', 'products-by-id/TNT-2P-GRN/product_event/', { ...BODY, event_type: eventType })).status,
    ).toBe(201);
  });

  it('the list is exactly the 16 of R-PEVT-4', () => {
    expect([...PRODUCT_EVENT_TYPES].sort()).toEqual(
      [
        'click',
        'promo click',
        'view',
        'detail',
        'liking',
        'add to observation',
        'reservation',
        'add',
        'add to cart',
        'remove',
        'checkout',
        'checkout option',
        'order',
        'purchase',
        'return',
        'refund',
      ].sort(),
    );
  });
});

describe('R-PEVT-2: a custom id with "/"', () => {
  it.each([
    ['as is', 'product-event-creation/SKU/2024/RED/'],
    ['percent-encoded', 'product-event-creation/SKU%2F2024%2FRED/'],
  ])(
    '§4.3 the alternative endpoint takes everything between its prefix and the final "/" as the custom id (%s)',
    async (_case, path) => {
      const s = await world();
      const res = await s.call('POST', path, BODY);
      expect(res.status).toBe(201);
      expect(s.state.productEvents()[0]).toMatchObject({ product_custom_id: 'SKU/2024/RED', product_id: 2 });
    },
  );

  it.each([
    ['percent-encoded', 'products-by-id/SKU%2F2024%2FRED/product_event/'],
    ['as is', 'products-by-id/SKU/2024/RED/product_event/'],
  ])('§4.3 the standard endpoint cannot carry it (%s): 404 Not found, nothing recorded', async (_case, path) => {
    const s = await world();
    const res = await s.call('POST', path, BODY);
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ detail: 'Not found.' });
    expect(s.state.productEvents()).toEqual([]);
  });

  it('other percent-encoded characters in the custom id are decoded on both endpoints', async () => {
    const s = await world();
    await products(s, 'Zelt ä 2+1');
    for (const path of [
      `products-by-id/${encodeURIComponent('Zelt ä 2+1')}/product_event/`,
      `product-event-creation/${encodeURIComponent('Zelt ä 2+1')}/`,
    ]) {
      expect((await s.call('POST', path, BODY)).status).toBe(201);
    }
    expect(s.state.productEvents().map((e) => e.product_custom_id)).toEqual(['Zelt ä 2+1', 'Zelt ä 2+1']);
  });
});
