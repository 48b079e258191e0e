import { describe, expect, it } from 'vitest';
import { formatDuration, formatEstimate, formatSummary, newFileSummary, totalsOf } from '../../src/report/summary.js';

describe('formatDuration / formatEstimate', () => {
  it.each([
    [0, '0 s'],
    [4, '4 s'],
    [59.2, '1 min'],
    [1234.5, '20 min 35 s'],
    [3600, '1 h'],
    [3723, '1 h 2 min 3 s'],
  ])('%d s → %s', (s, text) => {
    expect(formatDuration(s)).toBe(text);
  });

  it('says how long the live import would take at the rate', () => {
    expect(formatEstimate(12_345, 10)).toBe('12,345 requests ≈ 20 min 35 s at 10 req/s');
    expect(formatEstimate(1, 10)).toBe('1 request ≈ 1 s at 10 req/s');
  });
});

describe('formatSummary', () => {
  it('counts by status per file, then the estimate and the files written', () => {
    const a = newFileSummary('samples/products.csv', 'product');
    a.counts.valid = 10;
    a.counts.invalid = 2;
    a.requests = 10;
    const b = newFileSummary('samples/events.csv', 'event');
    b.counts.valid = 5;
    b.requests = 5;
    const text = formatSummary({
      mode: 'dry-run',
      files: [a, b],
      totals: totalsOf([a, b]),
      requests: 15,
      rate: 10,
      report: 'out/report.csv',
      rejects: ['out/rejects.csv'],
      payloads: undefined,
      aborted: undefined,
      limit: undefined,
    });
    expect(text).toBe(
      'Dry run (nothing was sent): 17 rows in 2 files: valid 15, invalid 2\n' +
        '  samples/products.csv  product           valid 10, invalid 2\n' +
        '  samples/events.csv    event             valid 5\n' +
        'Live import: 15 requests ≈ 2 s at 10 req/s\n' +
        'Report: out/report.csv\n' +
        'Rejects: out/rejects.csv\n',
    );
  });

  it('a live file line says 1 request, 1 retry, and a --limit of 1 row, in the singular', () => {
    const a = newFileSummary('samples/products.csv', 'product');
    a.counts.ok = 1;
    a.requests = 1;
    a.retries = 1;
    a.elapsedMs = 2000;
    const text = formatSummary({
      mode: 'live',
      files: [a],
      totals: totalsOf([a]),
      requests: 1,
      rate: 10,
      report: 'out/report.csv',
      rejects: [],
      payloads: undefined,
      aborted: undefined,
      limit: 1,
    });
    expect(text).toContain('ok 1  (1 request, 1 retry, 0 × 429, 2 s, 0.5 req/s)');
    expect(text).toContain('(--limit: at most 1 row read per file)');
  });
});
