/** docs/api-contract.md R-USER-1 … R-USER-3, R-PROD-1, R-PROD-2, R-ORDER-1, R-IDEM-1. */
import { describe, expect, it } from 'vitest';
import { products, sandbox, users } from './_helpers.js';

describe('R-USER-1 POST /users/update_or_create/', () => {
  it('keyed on custom_id: 201 {created: true, id} then 200 {created: false, id}; ids are integers', async () => {
    const s = await sandbox();
    const first = await s.call('POST', 'users/update_or_create/', { custom_id: 'C-10001', email: 'anna@example.pl' });
    const other = await s.call('POST', 'users/update_or_create/', { custom_id: 'C-10002' });
    const again = await s.call('POST', 'users/update_or_create/', { custom_id: 'C-10001', first_name: 'Anna' });
    expect([first, other, again].map((r) => [r.status, r.body])).toEqual([
      [201, { created: true, id: 1 }],
      [201, { created: true, id: 2 }],
      [200, { created: false, id: 1 }],
    ]);
    expect(Object.keys(first.body)).toEqual(['created', 'id']);
  });

  it('Call ordering rule 5: idempotent, the same request twice leaves one contact with the fields sent', async () => {
    const s = await sandbox();
    const body = {
      custom_id: 'C-1',
      email: 'a@example.com',
      first_name: 'Anna',
      last_name: 'Kowalska',
      phone_number: '+48 601 234 567',
      tags: ['newsletter', 'family'],
      company_custom_id: 'ACME',
      loyalty_tier: 'gold',
    };
    await s.call('POST', 'users/update_or_create/', body);
    await s.call('POST', 'users/update_or_create/', body);
    const { created_at: _c, updated_at: _u, ...user } = s.state.users()[0]!;
    expect(s.state.users()).toHaveLength(1);
    expect(user).toEqual({
      id: 1,
      custom_id: 'C-1',
      email: 'a@example.com',
      first_name: 'Anna',
      last_name: 'Kowalska',
      phone_number: '+48 601 234 567',
      tags: ['newsletter', 'family'],
      company_custom_id: 'ACME',
      attributes: { loyalty_tier: 'gold' },
    });
  });

  it('an update changes only the fields sent', async () => {
    const s = await sandbox();
    await s.call('POST', 'users/update_or_create/', { custom_id: 'C-1', email: 'a@example.com', tier: 'gold' });
    await s.call('POST', 'users/update_or_create/', { custom_id: 'C-1', first_name: 'Anna', plan: 'x' });
    expect(s.state.users()[0]).toMatchObject({
      email: 'a@example.com',
      first_name: 'Anna',
      attributes: { tier: 'gold', plan: 'x' },
    });
  });

  it.each([
    ['no custom_id', { email: 'a@example.com' }, { custom_id: ['This field is required.'] }],
    ['a blank custom_id', { custom_id: ' ' }, { custom_id: ['This field may not be blank.'] }],
    [
      'R-USER-2: first_name of 41 characters',
      { custom_id: 'C-10014', first_name: 'Maria Josefa Carolina Theresia Anna Luisa' },
      { first_name: ['Ensure this field has no more than 40 characters.'] },
    ],
    [
      'last_name of 41 characters',
      { custom_id: 'C-1', last_name: 'x'.repeat(41) },
      { last_name: ['Ensure this field has no more than 40 characters.'] },
    ],
    [
      'an email that is not one',
      { custom_id: 'C-1', email: 'anna(at)example.pl' },
      { email: ['Enter a valid email address.'] },
    ],
    ['tags not a list', { custom_id: 'C-1', tags: 'a;b' }, { tags: ['Expected a list of items but got type "str".'] }],
    [
      'every error at once',
      { first_name: 'x'.repeat(41), email: 'no' },
      {
        custom_id: ['This field is required.'],
        first_name: ['Ensure this field has no more than 40 characters.'],
        email: ['Enter a valid email address.'],
      },
    ],
  ])('%s → 400 (flat format), nothing created', async (_case, body, errors) => {
    const s = await sandbox();
    const res = await s.call('POST', 'users/update_or_create/', body);
    expect(res.status).toBe(400);
    expect(res.body).toEqual(errors);
    expect(s.state.users()).toEqual([]);
  });

  it('first_name of exactly 40 characters, accents included, is accepted', async () => {
    const s = await sandbox();
    expect(
      (await s.call('POST', 'users/update_or_create/', { custom_id: 'C-1', first_name: 'Ł'.repeat(40) })).status,
    ).toBe(201);
  });

  it('R-USER-3: in version 2 custom attributes must exist in the account (when the fixtures list them)', async () => {
    const s = await sandbox({ fixtures: { userAttributes: ['loyalty_tier'] } });
    expect((await s.call('POST', 'users/update_or_create/', { custom_id: 'C-1', loyalty_tier: 'gold' })).status).toBe(
      201,
    );
    const res = await s.call('POST', 'users/update_or_create/', { custom_id: 'C-2', shoe_size: 42 });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ shoe_size: ['Custom attribute "shoe_size" does not exist in the account.'] });
  });

  it('a user can then be referenced by id (user_id) or by custom id, on every endpoint that names one', async () => {
    const s = await sandbox();
    const [id] = await users(s, 'C-7');
    await products(s, 'SKU-1');
    expect((await s.call('POST', 'events/', { user_id: id, name: 'a' })).status).toBe(201);
    expect((await s.call('POST', 'users-by-id/C-7/events/', { name: 'a' })).status).toBe(201);
    expect(
      (
        await s.call('POST', 'products-by-id/SKU-1/product_event/', {
          user_id: id,
          event_type: 'view',
          data: {},
          timestamp: 1,
        })
      ).status,
    ).toBe(201);
    expect(
      (
        await s.call('POST', 'products-by-id/SKU-1/product_event/', {
          user_custom_id: 'C-7',
          event_type: 'view',
          data: {},
          timestamp: 1,
        })
      ).status,
    ).toBe(201);
    expect((await s.call('POST', 'deals/', { user_custom_id: 'C-7' })).body).toMatchObject({
      user_id: id,
      user_custom_id: 'C-7',
    });
    expect((await s.call('POST', 'deals/', { user_id: id })).body).toMatchObject({
      user_id: id,
      user_custom_id: 'C-7',
    });
  });

  it('fixtures: starting users exist', async () => {
    const s = await sandbox({ fixtures: { users: [{ id: 40, custom_id: 'C-40' }] } });
    expect((await s.call('POST', 'events/', { user_id: 40, name: 'x' })).status).toBe(201);
    expect((await s.call('POST', 'users/update_or_create/', { custom_id: 'C-41' })).body).toEqual({
      created: true,
      id: 41,
    });
  });
});

describe('R-PROD-1 POST /products/', () => {
  it('creates a product: 201 with its record, integer id, extra keys as product attributes', async () => {
    const s = await sandbox();
    const res = await s.call('POST', 'products/', {
      custom_id: 'TNT-2P-GRN',
      name: 'Trekker 2 Tent (green)',
      price: 249,
      category_name: 'Tents',
      product_url: 'https://shop.example.com/p/t',
      image_url: 'https://cdn.example.com/t.jpg',
      colour: 'green',
    });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      id: 1,
      custom_id: 'TNT-2P-GRN',
      name: 'Trekker 2 Tent (green)',
      price: 249,
      category_name: 'Tents',
      product_url: 'https://shop.example.com/p/t',
      image_url: 'https://cdn.example.com/t.jpg',
      created_at: expect.any(String),
      colour: 'green',
    });
  });

  it('a duplicate custom_id is a 400', async () => {
    const s = await sandbox({ fixtures: { products: [{ custom_id: 'SKU-OLD' }] } });
    for (const custom_id of ['SKU-1', 'SKU-OLD']) await s.call('POST', 'products/', { custom_id });
    const res = await s.call('POST', 'products/', { custom_id: 'SKU-1', name: 'again' });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ custom_id: ['product with this custom id already exists.'] });
    expect(s.state.products().map((p) => p.custom_id)).toEqual(['SKU-OLD', 'SKU-1']);
  });

  it.each([
    ['no custom_id', { name: 'Gift card' }, { custom_id: ['This field is required.'] }],
    [
      'a price with a thousands separator',
      { custom_id: 'TNT-3P-EXP', price: '1,299.00' },
      { price: ['A valid number is required.'] },
    ],
    ['a name that is not text', { custom_id: 'X', name: ['a'] }, { name: ['Not a valid string.'] }],
  ])('%s → 400 (flat format)', async (_case, body, errors) => {
    const s = await sandbox();
    const res = await s.call('POST', 'products/', body);
    expect(res.status).toBe(400);
    expect(res.body).toEqual(errors);
  });

  it('Call ordering rule 1: products first, then deals and product events can reference them', async () => {
    const s = await sandbox();
    await users(s, 'C-1');
    expect((await s.call('POST', 'deals/', { products_custom_id: ['SKU-1'] })).status).toBe(400);
    await products(s, 'SKU-1');
    expect((await s.call('POST', 'deals/', { products_custom_id: ['SKU-1'] })).status).toBe(201);
  });
});
