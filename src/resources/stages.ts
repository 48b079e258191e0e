/** The import's stages, one per group of resources that depend on the same parents. */
export type StageName = 'products' | 'contacts' | 'deals' | 'events' | 'webpush';

/**
 * Stages in the order they run (docs/api-contract.md R-ORDER-1 … R-ORDER-4): products first, then contacts,
 * deals once both exist, events after the contacts they belong to. Webpush campaigns reference
 * none of these and go last.
 */
export const STAGE_ORDER: readonly StageName[] = Object.freeze([
  'products',
  'contacts',
  'deals',
  'events',
  'webpush',
] as const);
