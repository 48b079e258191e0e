import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { jobDigest, mappingDigest } from '../../src/config/config-digest.js';
import { loadJob } from '../../src/config/load-job.js';
import { loadMapping } from '../../src/config/load-mapping.js';
import { tmpTree } from '../helpers/tmp.js';

const MAPPING =
  'resource: user\nsource: { file: u.csv }\nkey: cid\nfields:\n  custom_id: cid\n  email: { column: email, required: true }\n';

describe('mappingDigest', () => {
  it('is unchanged by a comment, blank lines, key order and the short form of a field', async () => {
    const dir = tmpTree({
      'a.yaml': MAPPING,
      'b.yaml': `# added later\nkey: cid\n\nresource: user\nsource: { file: u.csv, delimiter: ",", encoding: utf-8 }\nfields:\n  custom_id: { column: cid }   # the id\n  email: { column: email, required: true }\n`,
    });
    expect(mappingDigest(await loadMapping(join(dir, 'b.yaml')))).toBe(
      mappingDigest(await loadMapping(join(dir, 'a.yaml'))),
    );
  });

  it('changes when what is sent changes', async () => {
    const dir = tmpTree({ 'a.yaml': MAPPING, 'b.yaml': MAPPING.replace('required: true', 'required: false') });
    expect(mappingDigest(await loadMapping(join(dir, 'b.yaml')))).not.toBe(
      mappingDigest(await loadMapping(join(dir, 'a.yaml'))),
    );
  });
});

describe('jobDigest', () => {
  it("follows its mappings, not the job file's bytes", async () => {
    const dir = tmpTree({ 'm.yaml': MAPPING, 'job.yaml': 'mappings: [m.yaml]\n' });
    const before = jobDigest(await loadJob(join(dir, 'job.yaml')));
    writeFileSync(join(dir, 'job.yaml'), '# nightly load\nmappings:\n  - m.yaml\n');
    expect(jobDigest(await loadJob(join(dir, 'job.yaml')))).toBe(before);
    writeFileSync(join(dir, 'm.yaml'), MAPPING.replace('email: {', 'phone: {'));
    expect(jobDigest(await loadJob(join(dir, 'job.yaml')))).not.toBe(before);
  });
});
