import { join } from 'node:path';
import { hashFile, type RunIdentity } from '../../src/ledger/index.js';
import { tmpTree } from '../helpers/tmp.js';

/** A project folder with a job, two mappings and two inputs, and the identity of a run of it. */
export async function project(): Promise<{ dir: string; identity: RunIdentity }> {
  const dir = tmpTree({
    'job.yaml': 'mappings: [mappings/events.yaml, mappings/deals.yaml]\n',
    'mappings/events.yaml': 'resource: event\nsource: { file: ../samples/events.csv }\n',
    'mappings/deals.yaml': 'resource: deal\nsource: { file: ../samples/deals.csv }\n',
    'samples/events.csv': 'row,customer,event\nR-1,C-1,Order Placed\n',
    'samples/deals.csv': 'custom_id,name\nD-1,First deal\n',
  });
  return { dir, identity: await identityOf(dir) };
}

export async function identityOf(
  dir: string,
  options: RunIdentity['options'] = { 'deal-update-method': 'PATCH', limit: null },
): Promise<RunIdentity> {
  const file = (p: string) => join(dir, p);
  return {
    job: { path: file('job.yaml'), sha256: (await hashFile(file('job.yaml'))).sha256 },
    mappings: await Promise.all(
      ['mappings/events.yaml', 'mappings/deals.yaml'].map(async (p) => ({
        path: file(p),
        sha256: (await hashFile(file(p))).sha256,
      })),
    ),
    inputs: await Promise.all(
      ['samples/events.csv', 'samples/deals.csv'].map(async (p) => ({ path: file(p), ...(await hashFile(file(p))) })),
    ),
    options,
  };
}

/** Resolves after the current turn's I/O and immediates: the ledger's group commit has run. */
export const nextTurn = () => new Promise<void>((r) => setImmediate(r));
