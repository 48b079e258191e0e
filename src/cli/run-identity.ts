import { createHmac } from 'node:crypto';
import type { LoadedJob } from '../config/load-job.js';
import { hashFile, type RunIdentity } from '../ledger/index.js';

/** Options that change what is sent: a resume with other values would not continue the same run. */
export interface PayloadOptions {
  readonly input: string | null;
  readonly limit: number | null;
  readonly 'deal-update-method': 'PATCH' | 'PUT';
  /** `incremental` or `full-refresh`; absent for a run that sends every row (older runs too). */
  readonly sync?: 'incremental' | 'full-refresh';
}

/** Where a run sends its rows: a resume against another base URL or key is refused. */
export interface Target {
  readonly baseUrl: URL;
  readonly apiKey: string;
}

/** What a resume must find unchanged: the job, its mappings, its input files, payload options, the target. */
export async function runIdentity(job: LoadedJob, options: PayloadOptions, target: Target): Promise<RunIdentity> {
  const jobHash = await hashFile(job.file);
  const mappings = await Promise.all(
    (job.kind === 'job' ? job.mappings : []).map(async (m) => ({ path: m.mappingFile, sha256: (await hashFile(m.mappingFile)).sha256 })),
  );
  const inputs = await Promise.all(job.mappings.map(async (m) => ({ path: m.source.path, ...(await hashFile(m.source.path)) })));
  return { job: { path: job.file, sha256: jobHash.sha256 }, mappings, inputs, options: { ...options }, target: { baseUrl: target.baseUrl.href, keyFingerprint: keyFingerprint(target.apiKey) } };
}

/**
 * Tells two keys apart without keeping either: an HMAC-SHA256 of a fixed text keyed by the API
 * key, 16 bytes of it. Nothing in it can be turned back into the key.
 */
export function keyFingerprint(apiKey: string): string {
  return createHmac('sha256', apiKey).update('engage-import run identity').digest('hex').slice(0, 32);
}
