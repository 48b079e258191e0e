import { createHmac } from 'node:crypto';
import { jobDigest, mappingDigest } from '../config/config-digest.js';
import type { LoadedJob } from '../config/load-job.js';
import { hashFile, type RunIdentity } from '../ledger/index.js';
import { withMappingNamed } from '../source/input-of-mapping.js';

/**
 * Options that change what is sent, or in which request: a resume with other values would not
 * continue the same run. Their names are the command line's, so a refused resume names the option.
 */
export interface PayloadOptions {
  readonly input: string | null;
  readonly limit: number | null;
  readonly 'deal-update-method': 'PATCH' | 'PUT';
  /** `incremental` or `full-refresh`; absent for a run that sends every row (older runs too). */
  readonly sync?: 'incremental' | 'full-refresh';
  /**
   * `--bulk`, `--bulk-min-rows`, `--bulk-chunk-rows`: which stages go by bulk import and which rows
   * share an upload, so they decide what the ledger's recorded chunks and import ids stand for.
   * Absent only when compared with a run that did not record them (payloadOptionsToCompare).
   */
  readonly bulk?: 'auto' | 'always' | 'never';
  readonly 'bulk-min-rows'?: number;
  readonly 'bulk-chunk-rows'?: number;
}

const BULK_KEYS = ['bulk', 'bulk-min-rows', 'bulk-chunk-rows'] as const;

/**
 * The payload options a resume compares with those the run recorded. A run started before the bulk
 * options were part of its identity did not record them: it stays resumable, compared without them.
 */
export function payloadOptionsToCompare(options: PayloadOptions, recorded: RunIdentity): PayloadOptions {
  if (BULK_KEYS.some((key) => key in recorded.options)) return options;
  const { bulk: _bulk, 'bulk-min-rows': _minRows, 'bulk-chunk-rows': _chunkRows, ...rest } = options;
  return rest;
}

/** Where a run sends its rows: a resume against another base URL or key is refused. */
export interface Target {
  readonly baseUrl: URL;
  readonly apiKey: string;
}

/** What a resume must find unchanged: the job, its mappings, its input files, payload options, the target. */
export async function runIdentity(job: LoadedJob, options: PayloadOptions, target: Target): Promise<RunIdentity> {
  // The job and its mappings by what they mean, not their bytes: a comment added to a mapping
  // does not make a resume refuse; the input files by their bytes, since every byte may be sent.
  const mappings = (job.kind === 'job' ? job.mappings : []).map((m) => ({
    path: m.mappingFile,
    sha256: mappingDigest(m),
  }));
  const inputs = await Promise.all(
    job.mappings.map(async (m) => ({
      path: m.source.path,
      ...(await hashFile(m.source.path).catch((error: unknown) => {
        throw withMappingNamed(error, m);
      })),
    })),
  );
  return {
    job: { path: job.file, sha256: jobDigest(job) },
    mappings,
    inputs,
    options: { ...options },
    target: { baseUrl: target.baseUrl.href, keyFingerprint: keyFingerprint(target.apiKey) },
  };
}

/**
 * Tells two keys apart without keeping either: an HMAC-SHA256 of a fixed text keyed by the API
 * key, 16 bytes of it. Nothing in it can be turned back into the key.
 */
export function keyFingerprint(apiKey: string): string {
  return createHmac('sha256', apiKey).update('engage-import run identity').digest('hex').slice(0, 32);
}
