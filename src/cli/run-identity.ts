import type { LoadedJob } from '../config/load-job.js';
import { hashFile, type RunIdentity } from '../ledger/index.js';

/** Options that change what is sent: a resume with other values would not continue the same run. */
export interface PayloadOptions {
  readonly input: string | null;
  readonly limit: number | null;
  readonly 'deal-update-method': 'PATCH' | 'PUT';
}

/** What a resume must find unchanged: the job, its mappings, its input files, payload options. */
export async function runIdentity(job: LoadedJob, options: PayloadOptions): Promise<RunIdentity> {
  const jobHash = await hashFile(job.file);
  const mappings = await Promise.all(
    (job.kind === 'job' ? job.mappings : []).map(async (m) => ({ path: m.mappingFile, sha256: (await hashFile(m.mappingFile)).sha256 })),
  );
  const inputs = await Promise.all(job.mappings.map(async (m) => ({ path: m.source.path, ...(await hashFile(m.source.path)) })));
  return { job: { path: job.file, sha256: jobHash.sha256 }, mappings, inputs, options: { ...options } };
}
