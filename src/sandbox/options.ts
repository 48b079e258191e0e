/**
 * Options of `startSandbox` (and of `engage-import sandbox`), and the check of fault settings
 * shared by the options, the CLI and `PATCH /__sandbox/faults`.
 */
import { z } from 'zod';
import type { FaultSettings } from './faults.js';
import type { FixturesInput } from './fixtures.js';

export interface SandboxOptions {
  /** TCP port; 0 picks a free one (tests). Default 0. */
  readonly port?: number;
  /** Address to listen on. Default `127.0.0.1`: the admin endpoints need no key, so loopback only. */
  readonly host?: string;
  /** The key clients must send (docs/api-contract.md R-AUTH-1, R-AUTH-2), 64 characters. Default: a random 64-character hex key. */
  readonly apiKey?: string;
  /** The starting records: fixtures as an object, or the path of a JSON fixtures file. Default: the built-in fixtures. */
  readonly fixtures?: FixturesInput | string;
  /** Requests per second per key, a sliding one-second window (R-RATE-1); 0 turns the limit off. Default 10. */
  readonly rate?: number;
  /** Delay of every API answer in ms. Default 0. */
  readonly latencyMs?: number;
  /** The delay varies uniformly by ± this many ms. Default 0. */
  readonly jitterMs?: number;
  /** Fraction of API requests answered 500, half before and half after the write. Default 0. */
  readonly failRate?: number;
  /** Fraction of API requests whose connection is destroyed without an answer, after the write. Default 0. */
  readonly dropRate?: number;
  /** Seed of the fault PRNG (mulberry32): the same seed and requests give the same faults. Default 42. */
  readonly seed?: number;
  /** NDJSON file the request log is written to (truncated first). Default: none, memory only. */
  readonly log?: string;
  /** The clock (ms since the epoch) of the rate limit, record timestamps and the log. Default `Date.now`. */
  readonly now?: () => number;
  /** How latency is waited, and the pauses of bulk imports; tests pass a fake. Default: a `setTimeout` promise. */
  readonly sleep?: (ms: number) => Promise<void>;
  /** Rows a bulk CSV import applies per second (docs/api-contract.md R-BULK-10: about 450 on the service); 0: no pause. Default 450. */
  readonly bulkRowsPerS?: number;
  /** Fraction of accepted bulk imports that stop part-way with status `failed` (seeded). Default 0. */
  readonly bulkFailRate?: number;
  /** Largest bulk upload file, in bytes (tests lower it). Default 200 MB (docs/api-contract.md R-BULK-1). */
  readonly bulkMaxBytes?: number;
}

/** Default of `bulkRowsPerS`: the docs' example imported 10,999 users in 24.4 s. */
export const DEFAULT_BULK_ROWS_PER_S = 450;

export const DEFAULT_FAULTS: FaultSettings = { rate: 10, latencyMs: 0, jitterMs: 0, failRate: 0, dropRate: 0 };
export const DEFAULT_SEED = 42;
/** Default of `host`: the admin endpoints need no key, so loopback only unless asked. */
export const DEFAULT_HOST = '127.0.0.1';
/** Default of `bulkFailRate`: no import fails unless asked. */
export const DEFAULT_BULK_FAIL_RATE = 0;

const fraction = z.number().min(0).max(1);
const millis = z.number().int().min(0).max(600_000);

/** A change of fault settings; every key optional, unknown keys refused. */
export const faultPatchSchema = z
  .strictObject({
    rate: z.number().int().min(0),
    latencyMs: millis,
    jitterMs: millis,
    failRate: fraction,
    dropRate: fraction,
  })
  .partial();

export type FaultPatch = z.infer<typeof faultPatchSchema>;

/**
 * `current` with `patch` applied, or the problems of the patch (`field: message`) when it is not
 * valid: rates are fractions and together at most 1.
 */
export function applyFaultPatch(
  current: FaultSettings,
  patch: unknown,
): { readonly settings: FaultSettings } | { readonly problems: string[] } {
  const parsed = faultPatchSchema.safeParse(patch);
  if (!parsed.success)
    return { problems: parsed.error.issues.map((i) => `${i.path.map(String).join('.') || '(body)'}: ${i.message}`) };
  const defined = Object.fromEntries(
    Object.entries(parsed.data).filter(([, v]) => v !== undefined),
  ) as Partial<FaultSettings>;
  const settings = { ...current, ...defined };
  if (settings.failRate + settings.dropRate > 1)
    return { problems: [`failRate + dropRate: must be at most 1 (got ${settings.failRate + settings.dropRate})`] };
  return { settings };
}
