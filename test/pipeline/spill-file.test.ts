import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SpillFile } from '../../src/pipeline/spill-file.js';

describe('SpillFile: records on disk, first in, first out', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'spill-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('gives back every record in order, text of any kind across block boundaries', () => {
    const spill = new SpillFile(join(dir, 's.ndjson'));
    // Multi-byte characters in records of varying length: some straddle the 64 KB read blocks.
    const records = Array.from({ length: 20_000 }, (_, i) => ({ i, text: `${'ü€𝄞'.repeat(i % 7)}\n"${i}"` }));
    for (const r of records.slice(0, 12_000)) spill.append(r);
    const out = Array.from({ length: 5_000 }, () => spill.next());
    for (const r of records.slice(12_000)) spill.append(r);
    while (spill.count > 0) out.push(spill.next());
    expect(out).toEqual(records);
    spill.close();
  });

  it('starts over empty once every record is read; its name is gone from the folder once it is open', () => {
    const file = join(dir, 's.ndjson');
    const spill = new SpillFile(file);
    for (let i = 0; i < 5_000; i++) spill.append({ i, pad: 'x'.repeat(100) });
    expect(spill.next()).toEqual({ i: 0, pad: 'x'.repeat(100) });
    expect(spill.bytesOnDisk).toBeGreaterThan(500_000);
    // The system frees the file however the process ends: nothing is left in the run's folder.
    expect(readdirSync(dir)).toEqual([]);
    while (spill.count > 0) spill.next();
    expect(spill.bytesOnDisk).toBe(0);
    spill.append({ again: true });
    expect(spill.next()).toEqual({ again: true });
    expect(() => spill.next()).toThrow('no record left');
    spill.close();
    expect(existsSync(file)).toBe(false);
  });
});
