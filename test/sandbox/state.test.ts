import { describe, expect, it } from 'vitest';
import { resolveFixtures } from '../../src/sandbox/fixtures.js';
import { SandboxState } from '../../src/sandbox/state.js';

const clock = () => Date.UTC(2026, 0, 5, 9, 0, 0, 123);

describe('SandboxState', () => {
  it('starts from the fixtures; new ids follow the highest fixture id', () => {
    const state = new SandboxState(
      resolveFixtures({
        users: [{ id: 7, custom_id: 'C-7', tier: 'gold' }, { custom_id: 'C-8' }],
        products: [{ custom_id: 'SKU-1' }],
        events: ['Signup'],
      }),
      clock,
    );
    expect(state.users().map((u) => [u.id, u.custom_id, u.attributes])).toEqual([
      [7, 'C-7', { tier: 'gold' }],
      [8, 'C-8', {}],
    ]);
    expect(state.newUserId()).toBe(9);
    expect(state.products()[0]).toMatchObject({ id: 1, custom_id: 'SKU-1', created_at: '2026-01-05T09:00:00.123Z' });
    expect(state.defineEvent('Signup')).toEqual({ event: { id: 1, name: 'Signup' }, created: false });
    expect(state.defineEvent('Login')).toEqual({ event: { id: 2, name: 'Login' }, created: true });
    expect(state.stage(3)).toEqual({ id: 3, name: 'Proposal', pipeline: 1 });
  });

  it('answers copies: changing them does not change the store', () => {
    const state = new SandboxState(resolveFixtures({}), clock);
    const campaigns = state.webpushCampaigns();
    campaigns[0]!.name = 'changed';
    expect(state.webpushCampaigns()[0]!.name).toBe('Campaign 1');
  });

  it('reset() forgets created records and restarts ids', () => {
    const state = new SandboxState(resolveFixtures({ events: ['Signup'] }), clock);
    state.putUser({
      id: state.newUserId(),
      custom_id: 'C-1',
      email: null,
      first_name: null,
      last_name: null,
      phone_number: null,
      company_custom_id: null,
      tags: [],
      attributes: {},
      created_at: '',
      updated_at: '',
    });
    state.defineEvent('Login');
    state.campaign(1)!.name = 'changed';
    state.reset();
    expect(state.snapshot()).toMatchObject({
      users: [],
      events: [{ id: 1, name: 'Signup' }],
      deals: [],
      eventOccurrences: [],
      productEvents: [],
    });
    expect(state.campaign(1)!.name).toBe('Campaign 1');
    expect(state.newUserId()).toBe(1);
  });
});
