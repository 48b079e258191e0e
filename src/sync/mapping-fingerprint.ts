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
 * resource (purchases and refunds, both events), theirs sorted and joined by commas, so the
 * state's record per resource still says which mapping is unchanged (`holdsFingerprint`).
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
  return [...new Set(prints)].sort().join(',');
}

/**
 * Whether a resource's recorded fingerprint (`resourceFingerprints`) holds this mapping's: the
 * mapping is as it was when the state recorded its resource, whatever the resource's other
 * mappings became.
 */
export function holdsFingerprint(recorded: string, mapping: string): boolean {
  return recorded.split(',').includes(mapping);
}
