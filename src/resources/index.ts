import type { ResourceName } from '../config/mapping-schema.js';
import { deal } from './deal.js';
import { event } from './event.js';
import { productEvent } from './product-event.js';
import { product } from './product.js';
import type { ResourceDef } from './resource-def.js';
import { user } from './user.js';
import { webpushCampaign } from './webpush-campaign.js';

export type { ApiCall, EntityRef, RequestOptions, ResourceDef } from './resource-def.js';
export { STAGE_ORDER, type StageName } from './stages.js';

const REGISTRY: { readonly [N in ResourceName]: ResourceDef } = {
  product,
  user,
  deal,
  event,
  'product-event': productEvent,
  'webpush-campaign': webpushCampaign,
};

/** The definition of one API resource: validation, routing, idempotency, references. */
export function resourceDef(name: ResourceName): ResourceDef {
  const def = REGISTRY[name];
  // A name from outside the mapping schema (a caller's cast): a bug, not data.
  if (def === undefined) throw new TypeError(`unknown resource ${JSON.stringify(name)}`);
  return def;
}
