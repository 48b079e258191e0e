import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadJob } from '../../src/config/load-job.js';
import { tmpTree } from '../helpers/tmp.js';

const mapping = (resource: string, extra = '') =>
  `resource: ${resource}\n${extra}source: { file: ${resource}.csv }\nkey: id\nfields: { custom_id: id }\n`;

describe('loadJob', () => {
  it('loads a job file: mapping paths relative to the job file, listed order kept', async () => {
    const dir = tmpTree({
      'jobs/job.yaml': 'mappings:\n  - ../m/events.yaml\n  - ../m/products.yaml\n',
      'm/events.yaml': mapping('event'),
      'm/products.yaml': mapping('product'),
    });
    const job = await loadJob(join(dir, 'jobs/job.yaml'));
    expect(job.kind).toBe('job');
    expect(job.mappings.map((m) => m.resource)).toEqual(['event', 'product']);
    expect(job.mappings[0]?.source.path).toBe(join(dir, 'm/event.csv'));
  });

  it('takes a single mapping file as a job of one', async () => {
    const dir = tmpTree({ 'p.yaml': mapping('product') });
    const job = await loadJob('p.yaml', { cwd: dir });
    expect(job.kind).toBe('mapping');
    expect(job.mappings).toHaveLength(1);
  });

  it('reports the problems of every mapping of the job at once', async () => {
    const dir = tmpTree({
      'job.yaml': 'mappings: [a.yaml, b.yaml]\n',
      'a.yaml': mapping('deal'),
      'b.yaml': mapping('orders'),
    });
    await expect(loadJob(join(dir, 'job.yaml'))).rejects.toThrow(
      `${join(dir, 'a.yaml')}:1: operation: a deal mapping needs \`operation\`: create, update or update_or_create\n${join(dir, 'b.yaml')}:1: resource: expected one of`,
    );
  });

  it('refuses --input with a job of several files', async () => {
    const dir = tmpTree({ 'job.yaml': 'mappings: [a.yaml]\n', 'a.yaml': mapping('user') });
    await expect(loadJob(join(dir, 'job.yaml'), { input: 'x.csv' })).rejects.toThrow(
      '--input replaces the CSV of a single mapping',
    );
  });
});
