import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/log/create-logger.js';
import { createProgress } from '../../src/pipeline/progress.js';
import { startSandbox, type Sandbox } from '../../src/sandbox/index.js';
import { runCli } from '../helpers/run-cli.js';
import { tmpTree } from '../helpers/tmp.js';

const ROOT = join(import.meta.dirname, '../..');
const CANARY = `canary${'k'.repeat(58)}`;

let sandbox: Sandbox | undefined;
const dirs: string[] = [];
afterEach(async () => {
  await sandbox?.close();
  sandbox = undefined;
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

describe('createLogger', () => {
  it('json: one object a line with time, level, event and the figures; text: the prose only', () => {
    const out = new PassThrough();
    let written = '';
    out.on('data', (c: Buffer) => (written += c.toString()));
    const json = createLogger('json', { stream: out, now: () => Date.UTC(2026, 10, 23, 3) });
    json.log('warn', 'throttled', { method: 'POST', endpoint: 'users', wait_ms: 1200 }, '429 …');
    const text = createLogger('text', { stream: out });
    text.log('info', 'stage_start', { stage: 'contacts' });
    text.log('info', 'progress', { done: 1 }, '[contacts] 1/2 rows');
    expect(written).toBe(
      '{"time":"2026-11-23T03:00:00.000Z","level":"warn","event":"throttled","method":"POST","endpoint":"users","wait_ms":1200,"text":"429 …"}\n[contacts] 1/2 rows\n',
    );
  });

  it('scrubs a secret it was told about, whichever figure carries it', () => {
    const out = new PassThrough();
    let written = '';
    out.on('data', (c: Buffer) => (written += c.toString()));
    const log = createLogger('json', { stream: out });
    log.redact(CANARY);
    log.log('error', 'message', { text: `engage-import: bad key ${CANARY}` });
    expect(written).not.toContain(CANARY);
    expect(written).toContain('[redacted]');
  });
});

describe('progress in json', () => {
  it('stage start, a progress event every period with its figures, stage end', () => {
    const out = new PassThrough();
    let written = '';
    out.on('data', (c: Buffer) => (written += c.toString()));
    let t = Date.UTC(2026, 10, 23, 3);
    const timers: (() => void)[] = [];
    const log = createLogger('json', { stream: out, now: () => t });
    const progress = createProgress({
      stream: out,
      tty: false,
      log,
      now: () => t,
      every: (ms, fn) => {
        expect(ms).toBe(10_000);
        timers.push(fn);
        return () => undefined;
      },
    });
    const stage = progress.stage('events: samples/events.csv', 40);
    for (let i = 0; i < 10; i++) stage.tick(i === 3 ? 'failed' : 'ok');
    t += 2_000;
    timers[0]!();
    stage.finish();
    const [start, tick, end] = written
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(start).toEqual({
      time: '2026-11-23T03:00:00.000Z',
      level: 'info',
      event: 'stage_start',
      stage: 'events: samples/events.csv',
      total: 40,
    });
    expect(tick).toEqual({
      time: '2026-11-23T03:00:02.000Z',
      level: 'info',
      event: 'progress',
      stage: 'events: samples/events.csv',
      done: 10,
      total: 40,
      ok: 9,
      unchanged: 0,
      already_sent: 0,
      superseded: 0,
      not_ok: 1,
      rows_per_s: 5,
      eta_s: 6,
      text: '[events: samples/events.csv] 10/40 rows, ok 9, not ok 1, 5.0 rows/s, ETA 6 s',
    });
    expect(end).toMatchObject({ event: 'stage_end', done: 10 });
  });
});

describe('--log-format json (canary)', () => {
  it('a live run with 429 pauses logs one parsable object a line: start, stages, pauses, summary, end; never the key', async () => {
    // 3 requests a second: the import at --rate 1000 meets 429s at once.
    sandbox = await startSandbox({ rate: 3, apiKey: CANARY });
    const out = tmpTree();
    dirs.push(out);
    const r = await runCli(
      [
        'import',
        'mappings/products.yaml',
        '--log-format',
        'json',
        '--base-url',
        sandbox.url,
        '--report',
        join(out, 'report.csv'),
        '--state-dir',
        join(out, 'state'),
        '--rate',
        '1000',
        '--concurrency',
        '2',
      ],
      { cwd: ROOT, env: { ENGAGE_API_KEY: CANARY } },
    );
    expect(r.code).toBe(1); // products.csv holds 3 bad rows on purpose
    expect(r.stderr).not.toContain(CANARY);
    expect(r.stderr).not.toContain('TNT-'); // no row contents: SKUs appear only in the report
    const lines = r.stderr
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    for (const l of lines) {
      expect(typeof l['time']).toBe('string');
      expect(['info', 'warn', 'error']).toContain(l['level']);
    }
    const events = lines.map((l) => l['event']);
    expect(events[0]).toBe('run_start');
    expect(events).toContain('stage_start');
    expect(events).toContain('stage_end');
    expect(events).toContain('summary');
    expect(events.at(-1)).toBe('run_end');
    const throttled = lines.filter((l) => l['event'] === 'throttled');
    expect(throttled.length).toBeGreaterThan(0);
    expect(throttled[0]).toMatchObject({ level: 'warn', method: 'POST', endpoint: 'products', source: 'retry-after' });
    expect(lines.at(-1)).toMatchObject({
      level: 'error',
      outcome: 'rows not ok',
      exit_code: 1,
      rows: 14,
      totals: { ok: 11, invalid: 3 },
    });
  });

  it('validate and a usage error are json lines too', async () => {
    const out = tmpTree();
    dirs.push(out);
    const v = await runCli(
      ['validate', 'mappings/products.yaml', '--log-format', 'json', '--report', join(out, 'r.csv')],
      { cwd: ROOT },
    );
    const lines = v.stderr
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({
      level: 'info',
      event: 'summary',
      summary: { mode: 'dry-run', totals: { valid: 11, invalid: 3 } },
    });
    expect(lines[0].summary.files[0].errors[0]).toEqual({
      status: 'invalid',
      message:
        '7 fields, but the header has 6 columns: field 7 is beyond the last column, 6 ("image") (a delimiter inside a value that is not quoted?)',
      count: 1,
      lines: [13],
    });
    const bad = await runCli(['validate', 'missing.yaml', '--log-format=json'], { cwd: ROOT });
    expect(bad.code).toBe(2);
    expect(JSON.parse(bad.stderr)).toMatchObject({ level: 'error', event: 'message' });
    // Every spelling the command line takes: camel case, the option before the command.
    for (const argv of [
      ['validate', 'missing.yaml', '--logFormat', 'json'],
      ['--log-format', 'json', 'validate', 'missing.yaml'],
    ]) {
      const r = await runCli(argv, { cwd: ROOT });
      expect(r.code).toBe(2);
      expect(JSON.parse(r.stderr)).toMatchObject({ level: 'error', event: 'message' });
    }
  });
});
