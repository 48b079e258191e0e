/** docs/api-contract.md R-PUSH-1 … R-PUSH-4. */
import { describe, expect, it } from 'vitest';
import { sandbox } from './_helpers.js';

describe('R-PUSH-1 PATCH /webpush-campaign/:id/', () => {
  it('§4.1 answers {id, name, category, eta, ttl}', async () => {
    const s = await sandbox();
    const res = await s.call('PATCH', 'webpush-campaign/1/', {
      name: 'Spring sale teaser',
      ttl: 86400,
      eta: '2026-03-02T08:00:00Z',
    });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      id: 1,
      name: 'Spring sale teaser',
      category: null,
      eta: '2026-03-02T08:00:00.000Z',
      ttl: 86400,
    });
    expect(Object.keys(res.body)).toEqual(['id', 'name', 'category', 'eta', 'ttl']);
  });

  it('fixtures: campaigns 1–5 exist by default', async () => {
    const s = await sandbox();
    for (const id of [1, 2, 3, 4, 5]) expect((await s.call('PATCH', `webpush-campaign/${id}/`, {})).status).toBe(200);
  });

  it('§4.1 partial update: only included fields change', async () => {
    const s = await sandbox();
    const before = s.state.webpushCampaigns()[1]!;
    await s.call('PATCH', 'webpush-campaign/2/', { ttl: 3600 });
    expect(s.state.webpushCampaigns()[1]).toEqual({ ...before, ttl: 3600 });
  });

  it('§4.1 / R-PUSH-2: messages, when given, replace every existing message', async () => {
    const s = await sandbox({
      fixtures: {
        webpushCampaigns: [
          {
            id: 7,
            name: 'Two',
            messages: [
              { title: 'a', body: 'b' },
              { title: 'c', body: 'd' },
            ],
          },
        ],
      },
    });
    const messages = [
      {
        title: 'Back in stock',
        body: 'The Daypack is back.',
        url: 'https://shop.example.com/p/daypack',
        require_interaction: true,
      },
    ];
    expect((await s.call('PATCH', 'webpush-campaign/7/', { messages })).status).toBe(200);
    expect(s.state.webpushCampaigns()[0]!.messages).toEqual(messages);
    await s.call('PATCH', 'webpush-campaign/7/', { name: 'Renamed' });
    expect(s.state.webpushCampaigns()[0]!.messages).toEqual(messages);
  });

  it('R-PUSH-3: category is accepted and not saved (always null)', async () => {
    const s = await sandbox();
    const res = await s.call('PATCH', 'webpush-campaign/1/', { category: 5 });
    expect(res).toMatchObject({ status: 200, body: { category: null } });
  });

  it('§2.1 eta: when not provided delivery starts at once, shown as null; null clears it', async () => {
    const s = await sandbox();
    expect((await s.call('PATCH', 'webpush-campaign/3/', { name: 'x' })).body.eta).toBeNull();
    await s.call('PATCH', 'webpush-campaign/3/', { eta: '2026-03-15 18:30+01:00' });
    expect(s.state.webpushCampaigns()[2]!.eta).toBe('2026-03-15T17:30:00.000Z');
    expect((await s.call('PATCH', 'webpush-campaign/3/', { eta: null })).body.eta).toBeNull();
  });

  it.each([
    ['an unknown id', 'webpush-campaign/999/'],
    ['an id that is not a number', 'webpush-campaign/spring/'],
  ])('unknown campaign (%s) → 404 {"detail":"Not found."}', async (_case, path) => {
    const s = await sandbox();
    const res = await s.call('PATCH', path, { name: 'x' });
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ detail: 'Not found.' });
  });

  it.each([
    [
      '§2.2 a message without title',
      { messages: [{ body: 'x' }] },
      { messages: [{ title: ['This field is required.'] }] },
    ],
    [
      '§2.2 the second message without body',
      { messages: [{ title: 'a', body: 'b' }, { title: 'c' }] },
      { messages: [{}, { body: ['This field is required.'] }] },
    ],
    [
      '§2.2 require_interaction not a boolean',
      { messages: [{ title: 'a', body: 'b', require_interaction: 'sometimes' }] },
      { messages: [{ require_interaction: ['Must be a valid boolean.'] }] },
    ],
    [
      'messages not a list',
      { messages: { title: 'a' } },
      { messages: ['Expected a list of items but got type "dict".'] },
    ],
    ['§2.1 ttl in hours', { ttl: '24h' }, { ttl: ['A valid integer is required.'] }],
    ['ttl negative', { ttl: -1 }, { ttl: ['Ensure this value is greater than or equal to 0.'] }],
    [
      'eta not a datetime',
      { eta: '2026-03-20' },
      {
        eta: [
          'Datetime has wrong format. Use one of these formats instead: YYYY-MM-DDThh:mm[:ss[.uuuuuu]][+HH:MM|-HH:MM|Z].',
        ],
      },
    ],
    [
      'several fields at once',
      { name: null, segment: 'all', ttl: 1.5 },
      {
        name: ['This field may not be null.'],
        segment: ['A valid integer is required.'],
        ttl: ['A valid integer is required.'],
      },
    ],
  ])('%s → 400 (flat format), nothing changes', async (_case, body, errors) => {
    const s = await sandbox();
    const before = s.state.webpushCampaigns();
    const res = await s.call('PATCH', 'webpush-campaign/4/', body);
    expect(res.status).toBe(400);
    expect(res.body).toEqual(errors);
    expect(s.state.webpushCampaigns()).toEqual(before);
  });

  it('only PATCH: another method → 405', async () => {
    const s = await sandbox();
    const res = await s.call('PUT', 'webpush-campaign/1/', { name: 'x' });
    expect(res.status).toBe(405);
    expect(res.body).toEqual({ detail: 'Method "PUT" not allowed.' });
    expect(res.headers.get('allow')).toBe('PATCH');
  });
});
