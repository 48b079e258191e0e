import { describe, expect, it } from 'vitest';
import { sandbox } from './_helpers.js';

describe('the sandbox and hostile request bodies', () => {
  it('refuses a body nested 100,000 levels deep with a 400, and keeps serving (state and request log included)', async () => {
    const s = await sandbox();
    const deep = `{"custom_id":"C-1","a":${'['.repeat(100_000)}${']'.repeat(100_000)}}`;
    const res = await s.call('POST', 'users/update_or_create/', undefined, { rawBody: deep });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ detail: 'JSON parse error - nesting deeper than 256 levels' });
    expect((await s.call('POST', 'users/update_or_create/', { custom_id: 'C-2' })).status).toBe(201);
    const state = await fetch(new URL('state', s.adminUrl));
    expect(state.status).toBe(200);
  });

  it.each(['constructor', 'toString', 'hasOwnProperty'])(
    'treats a body key %j as a custom attribute, not as a field of every object',
    async (key) => {
      const s = await sandbox();
      const res = await s.call('POST', 'users/update_or_create/', { custom_id: 'C-1', [key]: { a: 1 } });
      expect(res.status).toBe(201);
      expect(JSON.stringify(res.body)).not.toContain('[null]');
    },
  );
});
