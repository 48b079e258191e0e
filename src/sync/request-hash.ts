import { hash } from 'node:crypto';
import { canonicalJson } from './canonical-json.js';

/** A request as the sync state sees it: what the row would send (`resources` ApiCall). */
export interface HashedRequest {
  readonly method: string;
  /** Relative to the API root, as the resource routes it (`users/update_or_create/`). */
  readonly path: string;
  readonly body: unknown;
}

// The one-shot digest: a row's request is hashed once per incremental scan, and a Hash object per
// row costs several times the digest itself.
const sha256 = (text: string) => hash('sha256', text, 'hex');

/**
 * SHA-256 (hex) of the exact request a row sends: method, path and canonical JSON body. Equal
 * hashes mean the API would receive the same request, whatever the key order of the body.
 */
export function requestHash(request: HashedRequest): string {
  return sha256(`${request.method} ${request.path}\n${canonicalJson(request.body)}`);
}

/**
 * SHA-256 (hex) of what kind of occurrence a row is (`event Order Placed`) and the cells that
 * identify it (a mapping's `identity:` columns, in the order listed): an event keeps its identity
 * when the export changes its other cells.
 */
export function identityHash(what: string, cells: readonly string[]): string {
  return sha256(canonicalJson([what, cells]));
}

/** The identity of `identity:` cells as states written before `identityHash` took `what` held it (see `SyncKey.legacy`). */
export function legacyIdentityHash(cells: readonly string[]): string {
  return sha256(canonicalJson(cells));
}
