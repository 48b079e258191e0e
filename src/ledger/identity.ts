import { z } from 'zod';
import { displayPath } from '../text/display-path.js';

/**
 * What a resume must find unchanged: the job file, each mapping file, each input file, the
 * options that change payloads, and the target (the base URL and a fingerprint of the API key).
 * Rows are keyed by (mapping index, CSV line), so any of these changing would make a stored
 * outcome point at a different record, or at another account. The key itself is never part of
 * it: only a fingerprint that cannot be turned back into the key.
 */
export interface RunIdentity {
  readonly job: { path: string; sha256: string };
  readonly mappings: readonly { path: string; sha256: string }[];
  readonly inputs: readonly { path: string; size: number; sha256: string }[];
  readonly options: Readonly<Record<string, string | number | boolean | null>>;
  /** Where the rows go. Absent in ledgers written before it was recorded: then not checked. */
  readonly target?: RunTarget | undefined;
}

export interface RunTarget {
  readonly baseUrl: string;
  /** An HMAC of a fixed text keyed by the API key: equal keys give equal fingerprints; the key cannot be read back. */
  readonly keyFingerprint: string;
}

const Sha256 = z.string().regex(/^[0-9a-f]{64}$/);

/** The stored shape, checked when read back: a ledger whose identity does not parse is damaged. */
export const RunIdentitySchema = z.strictObject({
  job: z.strictObject({ path: z.string(), sha256: Sha256 }),
  mappings: z.array(z.strictObject({ path: z.string(), sha256: Sha256 })),
  inputs: z.array(z.strictObject({ path: z.string(), size: z.number().int().nonnegative(), sha256: Sha256 })),
  options: z.record(z.string(), z.union([z.string(), z.number(), z.boolean(), z.null()])),
  target: z.strictObject({ baseUrl: z.string(), keyFingerprint: z.string().regex(/^[0-9a-f]{16,64}$/) }).optional(),
});

/** A plain copy with only the known fields, so nothing the caller attached ends up on disk. */
export function normaliseIdentity(identity: RunIdentity): RunIdentity {
  return {
    job: { path: identity.job.path, sha256: identity.job.sha256 },
    mappings: identity.mappings.map((m) => ({ path: m.path, sha256: m.sha256 })),
    inputs: identity.inputs.map((i) => ({ path: i.path, size: i.size, sha256: i.sha256 })),
    options: Object.fromEntries(Object.entries(identity.options).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))),
    ...(identity.target && {
      target: { baseUrl: identity.target.baseUrl, keyFingerprint: identity.target.keyFingerprint },
    }),
  };
}

const bytes = (n: number) => n.toLocaleString('en-US');
const optionValue = (v: string | number | boolean | null | undefined) =>
  v === null || v === undefined ? 'not set' : String(v);

/**
 * Every difference between the identity a run started with and the current one, one sentence
 * each, in the order job, mappings, inputs, options; empty when the run may be resumed.
 * Paths are shown relative to `cwd` when below it.
 */
export function identityChanges(stored: RunIdentity, current: RunIdentity, cwd: string): string[] {
  const show = (path: string) => displayPath(path, cwd);
  const changes: string[] = [];

  if (stored.job.path !== current.job.path)
    changes.push(`job file was ${show(stored.job.path)}, now ${show(current.job.path)}`);
  else if (stored.job.sha256 !== current.job.sha256) changes.push(`job ${show(current.job.path)} changed`);

  changes.push(
    ...listChanges(
      'mapping',
      stored.mappings,
      current.mappings,
      (before, now) => (before.sha256 === now.sha256 ? undefined : `mapping ${show(now.path)} changed`),
      show,
    ),
  );
  changes.push(
    ...listChanges(
      'input',
      stored.inputs,
      current.inputs,
      (before, now) => {
        if (before.sha256 === now.sha256 && before.size === now.size) return undefined;
        const size =
          before.size === now.size
            ? `size ${bytes(now.size)} bytes, unchanged`
            : `size ${bytes(before.size)} → ${bytes(now.size)} bytes`;
        return `${show(now.path)} changed since the run started (${size}; sha256 differs)`;
      },
      show,
    ),
  );

  const keys = [...new Set([...Object.keys(stored.options), ...Object.keys(current.options)])].sort();
  for (const key of keys) {
    const before = stored.options[key];
    const now = current.options[key];
    if ((before ?? null) !== (now ?? null))
      changes.push(`option ${key} was ${optionValue(before)}, now ${optionValue(now)}`);
  }
  return changes;
}

/**
 * Where the rows went and where they would go now: the base URL, and the API key (by its
 * fingerprint). Empty when either identity does not record a target (an older ledger).
 */
export function targetChanges(stored: RunIdentity, current: RunIdentity, keyRotated = false): string[] {
  if (stored.target === undefined || current.target === undefined) return [];
  const changes: string[] = [];
  if (stored.target.baseUrl !== current.target.baseUrl)
    changes.push(`the base URL was ${stored.target.baseUrl}, now ${current.target.baseUrl}`);
  if (stored.target.keyFingerprint !== current.target.keyFingerprint && !keyRotated)
    changes.push(
      "the API key is not the one the run started with (another account? if it is this account's key, rotated since, resume with --key-rotated)",
    );
  return changes;
}

/**
 * Files matched by path: changed ones through `changed`, then added and removed ones, then a
 * reordering, which matters because a row's `source` is its mapping's position in the run.
 */
function listChanges<T extends { path: string }>(
  what: 'mapping' | 'input',
  stored: readonly T[],
  current: readonly T[],
  changed: (before: T, now: T) => string | undefined,
  show: (path: string) => string,
): string[] {
  const out: string[] = [];
  const before = new Map(stored.map((f) => [f.path, f]));
  const now = new Set(current.map((f) => f.path));
  for (const file of current) {
    const old = before.get(file.path);
    if (old === undefined) out.push(`${what} ${show(file.path)} was added`);
    else {
      const change = changed(old, file);
      if (change !== undefined) out.push(change);
    }
  }
  for (const file of stored) if (!now.has(file.path)) out.push(`${what} ${show(file.path)} was removed`);
  if (out.length === 0 && stored.length !== current.length)
    out.push(`the ${what} files are listed a different number of times`);
  else if (out.length === 0 && stored.some((f, i) => f.path !== current[i]?.path))
    out.push(`the order of the ${what} files changed`);
  return out;
}
