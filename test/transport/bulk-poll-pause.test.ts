import { describe, expect, it } from 'vitest';
import type { ImportStatusReport } from '../../src/transport/bulk-answers.js';
import { MIN_POLL_PAUSE_MS, pauseBeforePoll } from '../../src/transport/bulk-poll-pause.js';

const report = (over: Partial<ImportStatusReport>): ImportStatusReport => ({
  importId: 'imp',
  status: 'running',
  state: 'running',
  totalCount: 5000,
  succeeded: 0,
  failed: 0,
  rowsWithErrors: [],
  ...over,
});

describe('pauseBeforePoll', () => {
  it.each([
    ['no status read yet: the backoff', 2000, 1000, undefined, 2000],
    ['no progress field: the backoff', 2000, 1000, report({ totalCount: undefined }), 2000],
    ['nothing done yet: the backoff', 2000, 1000, report({ succeeded: 0 }), 2000],
    [
      'all rows done but still running (closing): the floor',
      2000,
      1000,
      report({ succeeded: 5000 }),
      MIN_POLL_PAUSE_MS,
    ],
    // Closing for long: a tenth of the 60 s so far, so polls grow sparser rather than repeat the floor.
    [
      'all rows done, long import still closing: a tenth of its time',
      15000,
      60000,
      report({ succeeded: 4990, failed: 10 }),
      6000,
    ],
    ['all rows done, short backoff: never longer than it', 1000, 60000, report({ succeeded: 5000 }), 1000],
    ['an ended import: the backoff (no further poll is made)', 2000, 1000, report({ state: 'finished' }), 2000],
    // 3,150 of 5,000 done in 7 s (450 rows/s): 1,850 left = 4.11 s, stretched by 10 % = 4,523 ms.
    [
      'progress says sooner than the backoff: when it should end',
      8000,
      7000,
      report({ succeeded: 3100, failed: 50 }),
      4523,
    ],
    ['progress says later than the backoff: the backoff', 4000, 3000, report({ succeeded: 1350 }), 4000],
    ['nearly done: never sooner than the floor', 8000, 7000, report({ succeeded: 4999 }), MIN_POLL_PAUSE_MS],
  ])('%s', (_name, backoff, elapsed, last, expected) => {
    expect(pauseBeforePoll(backoff, elapsed, last)).toBe(expected);
  });
});
