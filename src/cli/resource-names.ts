import { RESOURCES, type ResourceName } from '../config/mapping-schema.js';
import { ConfigError } from '../errors.js';

/** The names a user may give `--resource` besides the resource's own: the plural words the README uses. */
const ALIASES: Readonly<Record<string, ResourceName>> = {
  contacts: 'user',
  contact: 'user',
  users: 'user',
  products: 'product',
  deals: 'deal',
  events: 'event',
  'product-events': 'product-event',
  'webpush-campaigns': 'webpush-campaign',
  webpush: 'webpush-campaign',
};

/** Every name `--resource` takes (for yargs' `choices`). */
export const RESOURCE_NAMES: readonly string[] = [...RESOURCES, ...Object.keys(ALIASES)];

/** The resource named by `--resource`: its own name or one of the plural words (yargs has checked it is one). */
export function resourceNamed(name: string): ResourceName {
  const resource = ALIASES[name] ?? RESOURCES.find((r) => r === name);
  if (resource === undefined) throw new ConfigError('USAGE', `--resource ${name} is not a resource`);
  return resource;
}
