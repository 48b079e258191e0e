/**
 * A bulk stage's chunk files on a slow or full disk: the folder they go in exists before the first
 * row opens one, and a chunk that cannot be written stops the run (exit 3) with its rows reported,
 * never as an internal error.
 */
import type * as Fs from 'node:fs';
import type * as FsPromises from 'node:fs/promises';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { Sandbox } from '../../src/sandbox/index.js';
import { importOnNewSandbox, requestPaths } from '../helpers/import-on-sandbox.js';
import { tmpTree } from '../helpers/tmp.js';

const disk = vi.hoisted(() => ({
  mkdirDelayMs: 0,
  full: false,
  noFolder: false,
  heldFull: false,
  held: new Set<number>(),
}));

// A folder made asynchronously lands late, as on a loaded machine.
vi.mock('node:fs/promises', async (original) => {
  const real = await original<typeof FsPromises>();
  const mkdir = (async (...args: Parameters<typeof real.mkdir>) => {
    if (disk.mkdirDelayMs > 0) await new Promise((r) => setTimeout(r, disk.mkdirDelayMs));
    return real.mkdir(...args);
  }) as typeof real.mkdir;
  return { ...real, mkdir, default: { ...real, mkdir } };
});

// A full disk: chunk files are written to /dev/full, where every write fails (ENOSPC).
vi.mock('node:fs', async (original) => {
  const real = await original<typeof Fs>();
  const createWriteStream = ((path: Fs.PathLike, options?: Parameters<typeof real.createWriteStream>[1]) =>
    real.createWriteStream(
      disk.full && String(path).includes('/bulk/') ? '/dev/full' : path,
      options,
    )) as typeof real.createWriteStream;
  // A disk with no room left for the chunk folder itself.
  const mkdirSync = ((path: Fs.PathLike, options?: Parameters<typeof real.mkdirSync>[1]) => {
    if (disk.noFolder && String(path).endsWith('/bulk'))
      throw Object.assign(new Error(`ENOSPC: no space left on device, mkdir '${String(path)}'`), { code: 'ENOSPC' });
    return real.mkdirSync(path, options);
  }) as typeof real.mkdirSync;
  // A disk that cannot take the lines a stage holds behind a slow row (its spill file).
  const openSync = ((path: Fs.PathLike, ...rest: unknown[]) => {
    const fd = (real.openSync as (...a: unknown[]) => number)(path, ...rest);
    if (String(path).includes('held-lines-')) disk.held.add(fd);
    return fd;
  }) as typeof real.openSync;
  const writeSync = ((fd: number, ...rest: unknown[]) => {
    if (disk.heldFull && disk.held.has(fd))
      throw Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' });
    return (real.writeSync as (...a: unknown[]) => number)(fd, ...rest);
  }) as typeof real.writeSync;
  return {
    ...real,
    createWriteStream,
    mkdirSync,
    openSync,
    writeSync,
    default: { ...real, createWriteStream, mkdirSync, openSync, writeSync },
  };
});

const sandboxes: Sandbox[] = [];
afterEach(async () => {
  disk.mkdirDelayMs = 0;
  disk.full = false;
  disk.noFolder = false;
  disk.heldFull = false;
  for (const s of sandboxes.splice(0)) await s.close();
});

function contacts(n: number): string {
  const lines = ['customer_id,first_name', ...Array.from({ length: n }, (_, i) => `C-${i},First ${i}`)];
  return tmpTree({
    'contacts.csv': `${lines.join('\n')}\n`,
    'contacts.yaml':
      'resource: user\nsource: { file: contacts.csv }\nkey: customer_id\nfields:\n  custom_id: { column: customer_id, required: true }\n  first_name: first_name\n',
    'job.yaml': 'mappings: [contacts.yaml]\n',
  });
}

describe('bulk imports: the chunk files on disk', () => {
  it('a folder made late by a slow disk does not fail the first chunk: every row is imported', async () => {
    disk.mkdirDelayMs = 50;
    const r = await importOnNewSandbox(contacts(2), ['--bulk', 'always'], { opened: sandboxes });
    expect(r.stderr).not.toContain('internal error');
    expect(r.code, r.stderr).toBe(0);
    expect(r.report.map((l) => l.status)).toEqual(['ok', 'ok']);
  });

  it('a chunk that cannot be written (a full disk) stops the run, exit 3, its rows not sent and said so', async () => {
    disk.full = true;
    const r = await importOnNewSandbox(contacts(3), ['--bulk', 'always'], { opened: sandboxes });
    expect(r.stderr).not.toContain('internal error');
    expect(r.code).toBe(3);
    expect(r.report.map((l) => l.status)).toEqual(['not_sent', 'not_sent', 'not_sent']);
    expect(r.report[0]?.message).toMatch(/^not sent: the run stopped on an error \(ENOSPC/);
    expect(requestPaths(r.sandbox).filter((p) => p.endsWith('import/'))).toEqual([]);
  });

  it('a chunk folder that cannot be made (a full disk) stops the run, exit 3, its rows not sent', async () => {
    disk.noFolder = true;
    const r = await importOnNewSandbox(contacts(3), ['--bulk', 'always'], { opened: sandboxes });
    expect(r.stderr).not.toContain('internal error');
    expect(r.code).toBe(3);
    expect(r.report.map((l) => l.status)).toEqual(['not_sent', 'not_sent', 'not_sent']);
    expect(r.report[0]?.message).toMatch(/^not sent: the run stopped on an error \(ENOSPC/);
  });

  it('lines held behind a chunk that the disk cannot take stop the run (exit 3), every line still in the report', async () => {
    disk.heldFull = true;
    // One row fills the chunk; the 12,000 invalid rows after it settle at once and wait behind it,
    // past what is held in memory.
    const rows = ['customer_id,first_name', 'C-0,Ann', ...Array.from({ length: 12_000 }, (_, i) => `,Nobody ${i}`)];
    const dir = tmpTree({
      'contacts.csv': `${rows.join('\n')}\n`,
      'job.yaml':
        'resource: user\nsource: { file: contacts.csv }\nkey: customer_id\nfields:\n  custom_id: { column: customer_id, required: true }\n  first_name: first_name\n',
    });
    const r = await importOnNewSandbox(dir, ['--bulk', 'always'], { opened: sandboxes });
    expect(r.stderr).not.toContain('internal error');
    expect(r.code).toBe(3);
    expect(r.report).toHaveLength(12_001);
    expect(r.report[0]?.status).toBe('not_sent');
    expect(r.report[0]?.message).toMatch(/^not sent: the run stopped on an error \(ENOSPC/);
    expect(r.report.slice(1).every((l) => l.status === 'invalid')).toBe(true);
  }, 60_000);
});
