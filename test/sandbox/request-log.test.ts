import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { RequestLog, type RequestLogEntry } from '../../src/sandbox/request-log.js';
import { tmpTree } from '../helpers/tmp.js';

const entry = (i: number): RequestLogEntry => ({
  time: '2026-01-05T09:00:00.000Z',
  method: 'POST',
  path: '/api/public/events/',
  status: 201,
  applied: true,
  body: { name: `E-${i}` },
  fault: null,
});

describe('RequestLog', () => {
  it('keeps entries in memory and clears them in place', async () => {
    const log = await RequestLog.open();
    const view = log.entries;
    log.add(entry(1));
    log.add(entry(2));
    expect(view).toHaveLength(2);
    log.clear();
    expect(view).toHaveLength(0);
    expect(log.entries).toBe(view);
    await log.close();
  });

  it('writes one NDJSON line per entry, in order, all of them by close()', async () => {
    const file = join(tmpTree(), 'requests.ndjson');
    const log = await RequestLog.open(file);
    for (let i = 0; i < 5000; i++) log.add(entry(i));
    await log.close();
    const lines = readFileSync(file, 'utf8').trimEnd().split('\n');
    expect(lines).toHaveLength(5000);
    expect(JSON.parse(lines[4999]!)).toEqual(entry(4999));
  });

  it('batches lines: a few entries reach the file on the next turn of the event loop', async () => {
    const file = join(tmpTree(), 'requests.ndjson');
    const log = await RequestLog.open(file);
    log.add(entry(1));
    expect(readFileSync(file, 'utf8')).toBe('');
    await new Promise((r) => setTimeout(r, 50));
    expect(readFileSync(file, 'utf8')).toBe(`${JSON.stringify(entry(1))}\n`);
    await log.close();
  });

  it('truncates an old file', async () => {
    const dir = tmpTree({ 'requests.ndjson': 'old line\n' });
    const log = await RequestLog.open(join(dir, 'requests.ndjson'));
    await log.close();
    expect(readFileSync(join(dir, 'requests.ndjson'), 'utf8')).toBe('');
  });

  it('fails to open a file in a folder that does not exist', async () => {
    await expect(RequestLog.open(join(tmpTree(), 'no', 'such', 'requests.ndjson'))).rejects.toThrow(/ENOENT/);
  });
});
