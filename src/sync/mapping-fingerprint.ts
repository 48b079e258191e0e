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
