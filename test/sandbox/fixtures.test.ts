import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/errors.js';
import { DEFAULT_FIXTURES, loadFixtures, resolveFixtures } from '../../src/sandbox/fixtures.js';
import { tmpTree } from '../helpers/tmp.js';

describe('fixtures', () => {
  it('built in: pipelines 1–2 with stages 1–8, webpush campaigns 1–5, no users, products or events', () => {
    const f = resolveFixtures({});
    expect(f.pipelines.map((p) => [p.id, p.stages.map((s) => s.id)])).toEqual([
      [1, [1, 2, 3, 4]],
      [2, [5, 6, 7, 8]],
    ]);
    expect(f.webpushCampaigns.map((c) => c.id)).toEqual([1, 2, 3, 4, 5]);
    expect(f).toMatchObject({ users: [], products: [], events: [], userAttributes: undefined });
  });

  it('a section left out keeps the default; an empty list empties it', () => {
    const f = resolveFixtures({ users: [{ custom_id: 'C-1', loyalty_tier: 'gold' }], webpushCampaigns: [] });
    expect(f.pipelines).toBe(DEFAULT_FIXTURES.pipelines);
    expect(f.webpushCampaigns).toEqual([]);
    expect(f.users).toEqual([{ custom_id: 'C-1', loyalty_tier: 'gold' }]);
  });

  it.each([
    [
      { pipelines: [{ id: 'one', name: 'x' }] },
      'fixtures: pipelines.0.id: Invalid input: expected number, received string',
    ],
    [{ deals: [] }, 'fixtures: (top level): Unrecognized key: "deals"'],
    [
      { users: [{ email: 'a@b.co' }] },
      'fixtures: users.0.custom_id: Invalid input: expected string, received undefined',
    ],
    [{ products: [{ custom_id: 'A' }, { custom_id: 'A' }] }, 'fixtures: products (custom_id): "A" appears twice'],
    [
      {
        pipelines: [
          { id: 1, name: 'a', stages: [{ id: 1, name: 's' }] },
          { id: 2, name: 'b', stages: [{ id: 1, name: 't' }] },
        ],
      },
      'fixtures: stages: 1 appears twice',
    ],
  ])('refuses %j', (input, message) => {
    expect(() => resolveFixtures(input)).toThrow(new ConfigError('CONFIG_INVALID', message));
  });

  it('loads a JSON file and names it in errors', async () => {
    const dir = tmpTree({
      'ok.json': JSON.stringify({ events: ['Signup'] }),
      'bad.json': '{"events": [',
      'wrong.json': '{"events": "Signup"}',
    });
    expect((await loadFixtures(join(dir, 'ok.json'))).events).toEqual(['Signup']);
    await expect(loadFixtures(join(dir, 'bad.json'))).rejects.toThrow(/bad\.json: not valid JSON: /);
    await expect(loadFixtures(join(dir, 'wrong.json'))).rejects.toThrow(
      `${join(dir, 'wrong.json')}: events: Invalid input: expected array, received string`,
    );
    await expect(loadFixtures(join(dir, 'missing.json'))).rejects.toThrow(
      `${join(dir, 'missing.json')}: cannot read the fixtures file (ENOENT)`,
    );
  });
});
