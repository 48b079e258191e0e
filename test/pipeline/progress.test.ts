import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { createProgress } from '../../src/pipeline/progress.js';

describe('createProgress without a terminal (cron)', () => {
  it('logs one line every period and one when the stage ends', () => {
    const out = new PassThrough();
    let text = '';
    out.on('data', (c: Buffer) => (text += c.toString()));
    let t = 0;
    const timers: (() => void)[] = [];
    const progress = createProgress({
      stream: out,
      tty: false,
      now: () => t,
      every: (_ms, fn) => {
        timers.push(fn);
        return () => undefined;
      },
    });
    const stage = progress.stage('events: samples/events.csv', 40);
    for (let i = 0; i < 10; i++) stage.tick(i === 3 ? 'failed' : 'ok');
    t = 2_000;
    timers[0]!();
    expect(text).toBe('[events: samples/events.csv] 10/40 rows, ok 9, not ok 1, 5.0 rows/s, ETA 6 s\n');
    for (let i = 0; i < 30; i++) stage.tick('ok');
    t = 8_000;
    stage.finish();
    expect(text.split('\n')[1]).toBe(
      '[events: samples/events.csv] 40/40 rows, ok 39, not ok 1, 5.0 rows/s, ETA 0 s (done)',
    );
  });
});

describe('a stage the run stopped in', () => {
  it('ends its log line with "stopped early", not "done"', () => {
    const out = new PassThrough();
    let text = '';
    out.on('data', (c: Buffer) => (text += c.toString()));
    let t = 0;
    const progress = createProgress({ stream: out, tty: false, now: () => t, every: () => () => undefined });
    const stage = progress.stage('contacts: contacts.csv', 10);
    for (let i = 0; i < 10; i++) stage.tick(i < 4 ? 'ok' : 'not_sent');
    t = 1_000;
    stage.finish(true);
    expect(text).toBe(
      '[contacts: contacts.csv] 10/10 rows, ok 4, not ok 6, 10.0 rows/s, ETA 0 s (stopped early: rows not sent are not_sent in the report, rows whose answer it did not wait for unknown; resume goes on)\n',
    );
  });
});

describe('a stage of an incremental night', () => {
  it('counts the rows it had no need to send under their own statuses, not as nothing', () => {
    const out = new PassThrough();
    let text = '';
    out.on('data', (c: Buffer) => (text += c.toString()));
    let t = 0;
    const progress = createProgress({ stream: out, tty: false, now: () => t, every: () => () => undefined });
    const stage = progress.stage('events: events.csv', 5);
    for (const s of ['already_sent', 'already_sent', 'unchanged', 'superseded', 'ok'] as const) stage.tick(s);
    t = 1_000;
    stage.finish();
    expect(text).toBe(
      '[events: events.csv] 5/5 rows, ok 1, unchanged 1, already_sent 2, superseded 1, not ok 0, 5.0 rows/s, ETA 0 s (done)\n',
    );
  });
});
