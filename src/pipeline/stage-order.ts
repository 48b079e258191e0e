import type { ResolvedMapping } from '../config/mapping-schema.js';
import { resourceDef, STAGE_ORDER } from '../resources/index.js';

/**
 * Mappings in dependency order (the API's call ordering rules, see docs/api-contract.md): products, contacts, deals, events
 * and product events, webpush last; listing order is kept within a stage.
 */
export function inDependencyOrder(mappings: readonly ResolvedMapping[]): ResolvedMapping[] {
  const rank = (m: ResolvedMapping) => STAGE_ORDER.indexOf(resourceDef(m.resource).stage);
  return mappings
    .map((m, i) => ({ m, i }))
    .sort((a, b) => rank(a.m) - rank(b.m) || a.i - b.i)
    .map(({ m }) => m);
}
