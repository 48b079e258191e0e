import { createHash } from 'node:crypto';
import type { LoadedJob } from './load-job.js';
import type { ResolvedMapping } from './mapping-schema.js';

/**
 * A digest of what a mapping means, not of its bytes: the resolved mapping (every default filled
 * in) as canonical JSON. A comment, a blank line, a reordered key or a field written in its short
 * form (`email` instead of `{ column: email }`) leaves it unchanged, so a resume is not refused
 * as "job changed" for an edit that changes nothing sent; any change to what is sent changes it.
 * The CSV path is left out: the input file has its own place in a run's identity.
 */
export function mappingDigest(mapping: ResolvedMapping): string {
  const { mappingFile: _file, source, ...meaning } = mapping;
  return sha256(canonical({ ...meaning, source: { delimiter: source.delimiter, encoding: source.encoding } }));
}

/** The job's meaning: which mappings, in which order, each by its digest. */
export function jobDigest(job: LoadedJob): string {
  return sha256(
    canonical({
      kind: job.kind,
      mappings: job.mappings.map((m) => ({ file: m.mappingFile, digest: mappingDigest(m) })),
    }),
  );
}

function sha256(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

/** JSON with object keys sorted at every level, `undefined` members left out. */
function canonical(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) =>
    v !== null && typeof v === 'object' && !Array.isArray(v)
      ? Object.fromEntries(
          Object.entries(v as Record<string, unknown>)
            .filter(([, x]) => x !== undefined)
            .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)),
        )
      : v,
  );
}
