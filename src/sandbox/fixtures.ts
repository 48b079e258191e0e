/**
 * The records the sandbox starts with (and returns to on `POST /__sandbox/reset`): pipelines and
 * their stages, webpush campaigns, and any users, products and event names. the API has no
 * endpoint that creates pipelines, stages or campaigns, so deals and campaign updates need them
 * here. A fixtures file is JSON; a section it leaves out keeps the built-in default, an empty
 * list empties it.
 */
import { readFile } from 'node:fs/promises';
import { z } from 'zod';
import { ConfigError } from '../errors.js';

const id = z.number().int().positive();
const text = z.string().nullable().optional();

const stageSchema = z.strictObject({ id, name: z.string() });
const pipelineSchema = z.strictObject({ id, name: z.string(), stages: z.array(stageSchema).default([]) });

const messageSchema = z.looseObject({ title: z.string(), body: z.string() });
const campaignSchema = z.strictObject({
  id,
  name: z.string().default(''),
  eta: z.string().nullable().default(null),
  ttl: z.number().int().nonnegative().nullable().default(null),
  segment: z.number().int().nullable().default(null),
  messages: z.array(messageSchema).default([]),
});

/** A user: the contact fields of docs/api-contract.md R-USER-2; any other key is a custom attribute. */
const userSchema = z.looseObject({
  id: id.optional(),
  custom_id: z.string().min(1),
  email: text,
  first_name: text,
  last_name: text,
  phone_number: text,
  company_custom_id: text,
  tags: z.array(z.string()).optional(),
});

/** A product: the fields of R-PROD-1; any other key is a product attribute. */
const productSchema = z.looseObject({
  id: id.optional(),
  custom_id: z.string().min(1),
  name: text,
  price: z.number().nullable().optional(),
  category_name: text,
  product_url: text,
  image_url: text,
});

export const fixturesSchema = z.strictObject({
  pipelines: z.array(pipelineSchema).optional(),
  webpushCampaigns: z.array(campaignSchema).optional(),
  users: z.array(userSchema).optional(),
  products: z.array(productSchema).optional(),
  /** Event names defined before any event is sent (they list in `GET /events/`). */
  events: z.array(z.string().min(1)).optional(),
  /**
   * User custom attributes that exist in the account. When given, `POST /users/update_or_create/`
   * refuses any other extra key (R-USER-3: "In version 2, custom attributes must already
   * exist in the account"); when left out, every extra key is accepted.
   */
  userAttributes: z.array(z.string().min(1)).optional(),
});

/** A fixtures file's content, as written. */
export type FixturesInput = z.input<typeof fixturesSchema>;
export type PipelineFixture = z.output<typeof pipelineSchema>;
export type CampaignFixture = z.output<typeof campaignSchema>;
export type UserFixture = z.output<typeof userSchema>;
export type ProductFixture = z.output<typeof productSchema>;

/** Fixtures with every section resolved (defaults filled in). */
export interface Fixtures {
  readonly pipelines: readonly PipelineFixture[];
  readonly webpushCampaigns: readonly CampaignFixture[];
  readonly users: readonly UserFixture[];
  readonly products: readonly ProductFixture[];
  readonly events: readonly string[];
  readonly userAttributes: readonly string[] | undefined;
}

/**
 * The built-in fixtures: pipelines 1 (stages 1–4) and 2 (stages 5–8), webpush campaigns 1–5 with
 * one message each, no users, products or events; every user custom attribute accepted.
 */
export const DEFAULT_FIXTURES: Fixtures = {
  pipelines: [
    {
      id: 1,
      name: 'Sales',
      stages: [
        { id: 1, name: 'Lead' },
        { id: 2, name: 'Qualified' },
        { id: 3, name: 'Proposal' },
        { id: 4, name: 'Negotiation' },
      ],
    },
    {
      id: 2,
      name: 'Partners',
      stages: [
        { id: 5, name: 'Contacted' },
        { id: 6, name: 'Offer' },
        { id: 7, name: 'Contract' },
        { id: 8, name: 'Onboarding' },
      ],
    },
  ],
  webpushCampaigns: [1, 2, 3, 4, 5].map((n) => ({
    id: n,
    name: `Campaign ${n}`,
    eta: null,
    ttl: 86400,
    segment: null,
    messages: [{ title: `Campaign ${n}`, body: 'Hello from the sandbox.' }],
  })),
  users: [],
  products: [],
  events: [],
  userAttributes: undefined,
};

/** Checks fixtures given in code or read from a file; `source` names them in the error. */
export function resolveFixtures(input: unknown, source = 'fixtures'): Fixtures {
  const result = fixturesSchema.safeParse(input);
  if (!result.success) {
    const lines = result.error.issues.map(
      (issue) =>
        `${source}: ${issue.path.length > 0 ? issue.path.map(String).join('.') : '(top level)'}: ${issue.message}`,
    );
    throw new ConfigError('CONFIG_INVALID', lines.join('\n'));
  }
  const f = result.data;
  const fixtures: Fixtures = {
    pipelines: f.pipelines ?? DEFAULT_FIXTURES.pipelines,
    webpushCampaigns: f.webpushCampaigns ?? DEFAULT_FIXTURES.webpushCampaigns,
    users: f.users ?? DEFAULT_FIXTURES.users,
    products: f.products ?? DEFAULT_FIXTURES.products,
    events: f.events ?? DEFAULT_FIXTURES.events,
    userAttributes: f.userAttributes ?? DEFAULT_FIXTURES.userAttributes,
  };
  checkUnique(
    source,
    'pipelines',
    fixtures.pipelines.map((p) => p.id),
  );
  checkUnique(
    source,
    'stages',
    fixtures.pipelines.flatMap((p) => p.stages.map((s) => s.id)),
  );
  checkUnique(
    source,
    'webpushCampaigns',
    fixtures.webpushCampaigns.map((c) => c.id),
  );
  checkUnique(
    source,
    'users',
    fixtures.users.flatMap((u) => (u.id === undefined ? [] : [u.id])),
  );
  checkUnique(
    source,
    'users (custom_id)',
    fixtures.users.map((u) => u.custom_id),
  );
  checkUnique(
    source,
    'products',
    fixtures.products.flatMap((p) => (p.id === undefined ? [] : [p.id])),
  );
  checkUnique(
    source,
    'products (custom_id)',
    fixtures.products.map((p) => p.custom_id),
  );
  return fixtures;
}

/** Reads and checks a fixtures JSON file (`--fixtures F`). */
export async function loadFixtures(path: string): Promise<Fixtures> {
  let raw: string;
  try {
    raw = await readFile(path, 'utf8');
  } catch (cause) {
    throw new ConfigError(
      'CONFIG_INVALID',
      `${path}: cannot read the fixtures file (${(cause as NodeJS.ErrnoException).code ?? String(cause)})`,
      { cause },
    );
  }
  let data: unknown;
  try {
    data = JSON.parse(raw);
  } catch (cause) {
    throw new ConfigError('CONFIG_INVALID', `${path}: not valid JSON: ${(cause as Error).message}`, { cause });
  }
  return resolveFixtures(data, path);
}

function checkUnique(source: string, what: string, values: readonly (number | string)[]): void {
  const seen = new Set<number | string>();
  for (const v of values) {
    if (seen.has(v)) throw new ConfigError('CONFIG_INVALID', `${source}: ${what}: ${JSON.stringify(v)} appears twice`);
    seen.add(v);
  }
}
