import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { loadJob } from '../../src/config/load-job.js';
import { tmpTree } from '../helpers/tmp.js';

const mapping = (resource: string, extra = '') =>
  `resource: ${resource}\nsource: { file: ${resource}.csv }\nkey: id\nfields: { custom_id: id }\n${extra}`;

let dirs: string[] = [];
afterEach(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
  dirs = [];
});
const tree = (files: Record<string, string>) => {
  const dir = tmpTree(files);
  dirs.push(dir);
  return dir;
};

describe('incremental settings in job and mapping files', () => {
  it('reads `sync: incremental` from a job file', async () => {
    const dir = tree({ 'job.yaml': 'mappings: [p.yaml]\nsync: incremental\n', 'p.yaml': mapping('product') });
    expect((await loadJob(join(dir, 'job.yaml'))).sync).toBe('incremental');
    const plain = tree({ 'job.yaml': 'mappings: [p.yaml]\n', 'p.yaml': mapping('product') });
    expect((await loadJob(join(plain, 'job.yaml'))).sync).toBeUndefined();
  });

  it('refuses another `sync:` value', async () => {
    const dir = tree({ 'job.yaml': 'mappings: [p.yaml]\nsync: sometimes\n', 'p.yaml': mapping('product') });
    await expect(loadJob(join(dir, 'job.yaml'))).rejects.toThrow(/sync/);
  });

  it('keeps the `identity:` columns of an event mapping', async () => {
    const dir = tree({ 'e.yaml': mapping('event', 'identity: [event_id, occurred_at]\n') });
    expect((await loadJob(join(dir, 'e.yaml'))).mappings[0]?.identity).toEqual(['event_id', 'occurred_at']);
  });

  it.each([
    [
      'on a contact mapping',
      mapping('user', 'identity: [id]\n'),
      '`identity` applies to events and product events only; user rows are matched by their custom_id or id',
    ],
    ['empty', mapping('event', 'identity: []\n'), 'identity'],
  ])('refuses `identity:` %s', async (_, text, message) => {
    const dir = tree({ 'm.yaml': text });
    await expect(loadJob(join(dir, 'm.yaml'))).rejects.toThrow(message);
  });
});
