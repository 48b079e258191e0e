/** A spill file on a disk that fills up: no record is lost, and the failure is said. */
import type * as Fs from 'node:fs';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { ReportWindow, settled, type Settled } from '../../src/pipeline/report-window.js';
import { SpillFile } from '../../src/pipeline/spill-file.js';

const disk = vi.hoisted(() => ({ room: Number.POSITIVE_INFINITY }));

// A disk with `room` bytes left: a write takes what fits, and the next one fails with ENOSPC.
vi.mock('node:fs', async (original) => {
  const real = await original<typeof Fs>();
  const writeSync = ((fd: number, buffer: Buffer, offset: number, length: number, position: number) => {
    if (disk.room <= 0) throw Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' });
    const take = Math.min(length, disk.room);
    disk.room -= take;
    return real.writeSync(fd, buffer, offset, take, position);
  }) as typeof real.writeSync;
  return { ...real, writeSync, default: { ...real, writeSync } };
});

describe('SpillFile on a disk that fills up', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'spill-full-'));
  });
  afterEach(() => {
    disk.room = Number.POSITIVE_INFINITY;
    rmSync(dir, { recursive: true, force: true });
  });

  it('keeps the records the file could not take in memory, and gives every record back in order', () => {
    disk.room = 100_000; // the first block fits, the second only in part
    const spill = new SpillFile(join(dir, 's.ndjson'));
    const records = Array.from({ length: 6_000 }, (_, i) => ({ i, pad: 'x'.repeat(40) }));
    for (const r of records.slice(0, 4_000)) spill.append(r);
    expect(spill.failure?.message).toMatch(/^ENOSPC/);
    const out = Array.from({ length: 1_000 }, () => spill.next());
    for (const r of records.slice(4_000)) spill.append(r);
    while (spill.count > 0) out.push(spill.next());
    expect(out).toEqual(records);
    spill.close();
  });

  it('a report window whose spill file fills up says so once, and still writes every line in input order', async () => {
    disk.room = 50_000;
    const failures: string[] = [];
    const written: number[] = [];
    const window = new ReportWindow(4, async (s: Settled) => void written.push(s.line.line), 100_000, {
      inMemory: 10,
      file: join(dir, 'held.ndjson'),
      onFailure: (error) => failures.push(error.message),
    });
    let answer: (s: Settled) => void = () => undefined;
    window.push(new Promise<Settled>((r) => (answer = r)));
    const line = (n: number) =>
      settled({ file: 'f.csv', line: n, resource: 'user', key: `k${n}`, status: 'unchanged' });
    for (let n = 3; n < 5_003; n++) window.push(line(n));
    expect(failures).toEqual([expect.stringMatching(/^ENOSPC/)]);
    answer(line(2));
    await window.drain();
    expect(written).toEqual(Array.from({ length: 5_001 }, (_, i) => i + 2));
    window.close();
  });
});
