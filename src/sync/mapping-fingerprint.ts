import { createHash } from 'node:crypto';
import { basename } from 'node:path';
import type { ResolvedMapping } from '../config/mapping-schema.js';
import { canonicalJson } from './canonical-json.js';

/**
 * A hash of what in a mapping can make a row the state holds look changed or new: equal
 * fingerprints mean a changed request comes from the data. For most mappings that is what shapes
 * the requests (resource, operation, fields, identity) and the run options that do too. Events and
 * product events given `identity:` are known by those cells and their name (or type) alone: only
 * that part of their mapping can make an event sent before look new, so a field added to such a
 * mapping is no change to it. Both take how the source is read (encoding, delimiter): another
 * encoding gives the same bytes other cells. File paths, the report key and formatting of the
 * mapping file are left out.
 */
export function mappingFingerprint(
  mapping: ResolvedMapping,
  requestOptions: Readonly<Record<string, unknown>> = {},
): string {
  const decoding = { encoding: mapping.source.encoding, delimiter: mapping.source.delimiter };
  return hashOf({ ...(identityShape(mapping) ?? requestShape(mapping, requestOptions)), decoding });
}

/** What shapes a mapping's requests. Hashed alone, it is the fingerprint states recorded before identity mappings had their own. */
function requestShape(mapping: ResolvedMapping, requestOptions: Readonly<Record<string, unknown>>) {
  return {
    resource: mapping.resource,
    operation: mapping.operation ?? null,
    fields: mapping.fields,
    identity: mapping.identity ?? null,
    options: requestOptions,
  };
}

/** The part of an event mapping with `identity:` its events are known by (see `mappingFingerprint`). */
function identityShape(mapping: ResolvedMapping) {
  const named = mapping.resource === 'event' ? 'name' : mapping.resource === 'product-event' ? 'event_type' : undefined;
  if (named === undefined || (mapping.identity ?? []).length === 0) return undefined;
  return {
    resource: mapping.resource,
    identity: mapping.identity,
    occurrence: mapping.fields.filter((f) => f.target === named),
  };
}

const hashOf = (shape: unknown) => createHash('sha256').update(canonicalJson(shape), 'utf8').digest('hex');

/**
 * The fingerprints that say a mapping is as recorded: its own, and the one a state recorded before
 * fingerprints took the source's decoding and identity mappings had their own (the request shape
 * alone). A state holds that older one only until its next run records the current one.
 */
function printsOf(mapping: ResolvedMapping, requestOptions: Readonly<Record<string, unknown>>): string[] {
  return [mappingFingerprint(mapping, requestOptions), hashOf(requestShape(mapping, requestOptions))];
}

/**
 * The fingerprint of each resource of a job: its mapping's or, when several mappings send one
 * resource (purchases and refunds, both events), each one's under its mapping file's name
 * (`purchases.yaml=<hex>,refunds.yaml=<hex>`), so that the state says which file is unchanged
 * (`mappingHeld`) and an edit to one does not hold back the others' new events.
 */
export function resourceFingerprints(
  mappings: readonly ResolvedMapping[],
  requestOptions: Readonly<Record<string, unknown>> = {},
): Record<string, string> {
  const byResource = new Map<string, ResolvedMapping[]>();
  for (const m of mappings) {
    const list = byResource.get(m.resource) ?? [];
    byResource.set(m.resource, list);
    list.push(m);
  }
  return Object.fromEntries(
    [...byResource].map(([resource, list]) => [
      resource,
      list.length === 1
        ? mappingFingerprint(list[0]!, requestOptions)
        : list
            .map((m) => `${labelOf(m)}=${mappingFingerprint(m, requestOptions)}`)
            .sort()
            .join(','),
    ]),
  );
}

/**
 * Whether the state's fingerprint of a mapping's resource (`recorded`) says this mapping is as it
 * was, whatever became of the job's other mappings of the resource (`all`). A state written
 * before fingerprints were kept per file holds one hash of all of them (`legacyCombined`): equal
 * to it, every mapping is unchanged. Two mapping files of the resource with one name (in two
 * folders) cannot be told apart by it: then only the whole resource's equality counts.
 */
export function mappingHeld(
  recorded: string,
  mapping: ResolvedMapping,
  all: readonly ResolvedMapping[],
  requestOptions: Readonly<Record<string, unknown>> = {},
): boolean {
  const same = all.filter((m) => m.resource === mapping.resource);
  if (recorded === resourceFingerprints(same, requestOptions)[mapping.resource]) return true;
  const prints = printsOf(mapping, requestOptions);
  if (!recorded.includes('='))
    return (
      prints.includes(recorded) || recorded === legacyCombined(same.map((m) => hashOf(requestShape(m, requestOptions))))
    );
  const labels = same.map(labelOf);
  const kept = recorded
    .split(',')
    .map((e) => ({ label: e.slice(0, e.lastIndexOf('=')), print: e.slice(e.lastIndexOf('=') + 1) }));
  // One name twice, now or then (two folders): which file a fingerprint was cannot be told.
  if (new Set(labels).size < labels.length || new Set(kept.map((k) => k.label)).size < kept.length) return false;
  // A name the state does not know (a file new to the job, or renamed) is not held: its events
  // are checked. The other fingerprints cannot vouch for it, since they do not say which data
  // each was sent with (renamed files that swapped fields would look unchanged).
  const own = kept.find((k) => k.label === labelOf(mapping));
  return own !== undefined && prints.includes(own.print);
}

/** A mapping's name in its resource's fingerprint: its file's name, without the separators the list uses. */
const labelOf = (m: ResolvedMapping) => encodeURIComponent(basename(m.mappingFile));

/** How several mappings' fingerprints were kept before they were kept per file: one hash of them all. */
function legacyCombined(prints: readonly string[]): string {
  if (prints.length === 1) return prints[0]!;
  return createHash('sha256')
    .update([...prints].sort().join('\n'), 'utf8')
    .digest('hex');
}
