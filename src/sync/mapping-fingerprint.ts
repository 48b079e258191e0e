import { createHash } from 'node:crypto';
import type { ResolvedMapping } from '../config/mapping-schema.js';
import { canonicalJson } from './canonical-json.js';

/**
 * A hash of what in a mapping shapes the requests (resource, operation, fields, identity) and
 * of the run options that do too: equal fingerprints mean a changed request comes from the
 * data. File paths, the report key and formatting of the mapping file are left out.
 */
export function mappingFingerprint(
  mapping: ResolvedMapping,
  requestOptions: Readonly<Record<string, unknown>> = {},
): string {
  const shape = {
    resource: mapping.resource,
    operation: mapping.operation ?? null,
    fields: mapping.fields,
    identity: mapping.identity ?? null,
    options: requestOptions,
  };
  return createHash('sha256').update(canonicalJson(shape), 'utf8').digest('hex');
}

/**
 * The fingerprint of each resource of a job: its mapping's, or, when several mappings send one
 * resource (contacts with email, another file with phone numbers), one hash of all of theirs, so
 * the state's record per resource changes only when one of them does.
 */
export function resourceFingerprints(
  mappings: readonly ResolvedMapping[],
  requestOptions: Readonly<Record<string, unknown>> = {},
): Record<string, string> {
  const byResource = new Map<string, string[]>();
  for (const m of mappings) {
    const list = byResource.get(m.resource) ?? [];
    byResource.set(m.resource, list);
    list.push(mappingFingerprint(m, requestOptions));
  }
  return Object.fromEntries([...byResource].map(([resource, prints]) => [resource, combined(prints)]));
}

function combined(prints: readonly string[]): string {
  if (prints.length === 1) return prints[0]!;
  return createHash('sha256')
    .update([...prints].sort().join('\n'), 'utf8')
    .digest('hex');
}
