import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadMapping } from '../../src/config/load-mapping.js';
import { canonicalJson } from '../../src/sync/canonical-json.js';
import { mappingFingerprint, mappingHeld, resourceFingerprints } from '../../src/sync/mapping-fingerprint.js';
import { tmpTree } from '../helpers/tmp.js';

const VISITS =
  'resource: event\nsource: { file: visits.csv }\nkey: id\nfields:\n  user_custom_id: user\n  name: { value: Visited }\n';
const STORE = `${VISITS.replace('visits.csv', 'store.csv')}  data.channel: { value: store }\n`;

/** A mapping's fingerprint as states written by earlier versions hold it: the hash of its request shape. */
const olderPrint = (m: Awaited<ReturnType<typeof loadMapping>>) =>
  createHash('sha256')
    .update(
      canonicalJson({
        resource: m.resource,
        operation: m.operation ?? null,
        fields: m.fields,
        identity: m.identity ?? null,
        options: {},
      }),
      'utf8',
    )
    .digest('hex');

/** The two event mappings of a job, as files: visits.yaml and store.yaml. */
async function mappings(visits: string, store: string) {
  const dir = tmpTree({ 'visits.yaml': visits, 'store.yaml': store });
  return [await loadMapping(join(dir, 'visits.yaml')), await loadMapping(join(dir, 'store.yaml'))] as const;
}

describe('mappingHeld: which mapping of a resource is as the state recorded it', () => {
  it('an edit to one mapping leaves the other held', async () => {
    const before = await mappings(VISITS, STORE);
    const recorded = resourceFingerprints(before)['event']!;
    const after = await mappings(VISITS, STORE.replace('store }', 'shop }'));
    expect(mappingHeld(recorded, after[0], after)).toBe(true);
    expect(mappingHeld(recorded, after[1], after)).toBe(false);
  });

  it('a mapping edited to equal another of its resource is not held (its requests changed)', async () => {
    const before = await mappings(VISITS, STORE);
    const recorded = resourceFingerprints(before)['event']!;
    const after = await mappings(VISITS, VISITS.replace('visits.csv', 'store.csv'));
    expect(mappingFingerprint(after[1])).toBe(mappingFingerprint(after[0]));
    expect(mappingHeld(recorded, after[1], after)).toBe(false);
  });

  it('a state written when several mappings were kept as one hash holds them all while none changed', async () => {
    const now = await mappings(VISITS, STORE);
    const legacy = createHash('sha256').update(now.map(olderPrint).sort().join('\n'), 'utf8').digest('hex');
    expect(mappingHeld(legacy, now[0], now)).toBe(true);
    expect(mappingHeld(legacy, now[1], now)).toBe(true);
    const edited = await mappings(VISITS, STORE.replace('store }', 'shop }'));
    expect(mappingHeld(legacy, edited[0], edited)).toBe(false);
  });

  it('a job that had one mapping of the resource and gains a second: the first is held, the new one not', async () => {
    const [visits] = await mappings(VISITS, STORE);
    const recorded = resourceFingerprints([visits])['event']!;
    const both = await mappings(VISITS, STORE);
    expect(mappingHeld(recorded, both[0], both)).toBe(true);
    expect(mappingHeld(recorded, both[1], both)).toBe(false);
  });

  it('a mapping file renamed is not held, whatever its content: renamed files that swapped fields would look unchanged', async () => {
    const before = await mappings(VISITS, STORE);
    const recorded = resourceFingerprints(before)['event']!;
    // Each file renamed, visits now sending store's fields and store visits': the same two fingerprints as then.
    const dir = tmpTree({
      'visits-v2.yaml': `${VISITS}  data.channel: { value: store }\n`,
      'store-v2.yaml': VISITS.replace('visits.csv', 'store.csv'),
    });
    const swapped = [await loadMapping(join(dir, 'visits-v2.yaml')), await loadMapping(join(dir, 'store-v2.yaml'))];
    expect(mappingHeld(recorded, swapped[0]!, swapped)).toBe(false);
    expect(mappingHeld(recorded, swapped[1]!, swapped)).toBe(false);
  });

  it('a state that kept one file name twice (two folders) holds a mapping only when the whole resource is as it was', async () => {
    const [visits, store] = await mappings(VISITS, STORE);
    const now = await mappings(VISITS, STORE);
    // Either order: the one of the two fingerprints that equals this mapping cannot vouch for it.
    for (const twice of [
      `visits.yaml=${mappingFingerprint(visits)},visits.yaml=${mappingFingerprint(store)}`,
      `visits.yaml=${mappingFingerprint(store)},visits.yaml=${mappingFingerprint(visits)}`,
    ])
      expect(mappingHeld(twice, now[0], now)).toBe(false);
    // Two files named visits.yaml in two folders, both as they were: the whole resource is, so each is held.
    const dir = tmpTree({ 'a/visits.yaml': VISITS, 'b/visits.yaml': STORE });
    const sameName = [await loadMapping(join(dir, 'a/visits.yaml')), await loadMapping(join(dir, 'b/visits.yaml'))];
    const recorded = resourceFingerprints(sameName)['event']!;
    expect(recorded.split(',').map((e) => e.split('=')[0])).toEqual(['visits.yaml', 'visits.yaml']);
    expect(mappingHeld(recorded, sameName[0]!, sameName)).toBe(true);
    expect(mappingHeld(recorded, sameName[1]!, sameName)).toBe(true);
  });

  it('an event mapping with identity: is fingerprinted by its identity and name alone, and a state that kept its whole shape still holds it', async () => {
    const withIdentity = VISITS.replace('key: id\n', 'key: id\nidentity: [id]\n');
    const [a, b] = await mappings(
      withIdentity,
      `${withIdentity.replace('visits.csv', 'store.csv')}  data.x: { value: y }\n`,
    );
    // A field added: the same events, the same fingerprint; a name changed: another one.
    expect(mappingFingerprint(b)).toBe(mappingFingerprint(a));
    const [renamed] = await mappings(withIdentity.replace('Visited', 'Visit'), withIdentity);
    expect(mappingFingerprint(renamed)).not.toBe(mappingFingerprint(a));
    // What a state recorded before: the hash of the whole request shape.
    const whole = olderPrint(a);
    expect(whole).not.toBe(mappingFingerprint(a));
    expect(mappingHeld(whole, a, [a])).toBe(true);
    expect(mappingHeld(whole, renamed, [renamed])).toBe(false);
  });
});
