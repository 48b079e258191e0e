import { describe, expect, it } from 'vitest';
import type { RowFailure } from '../../src/errors.js';
import { failureLine, type FailureFields } from '../../src/report/failure-line.js';

describe('failureLine: a row failure → its report line fields', () => {
  const cases: [string, RowFailure, 'request' | 'bulk_import', FailureFields][] = [
    [
      'a refused request keeps its status and the service message',
      { kind: 'failed', status: 400, message: 'email: Enter a valid email address.' },
      'request',
      { status: 'failed', http_status: 400, message: 'email: Enter a valid email address.' },
    ],
    [
      'an unknown request keeps its status',
      { kind: 'unknown', status: 502, message: 'HTTP 502 (gave up after 5 attempts)' },
      'request',
      { status: 'unknown', http_status: 502, message: 'HTTP 502 (gave up after 5 attempts)' },
    ],
    [
      'an unknown without an answer has no http_status',
      { kind: 'unknown', message: 'the answer was lost' },
      'request',
      { status: 'unknown', message: 'the answer was lost' },
    ],
    [
      'not sent, and nothing applied: not_sent',
      { kind: 'not_sent', message: 'not sent: the run was interrupted', mayHaveApplied: false },
      'request',
      { status: 'not_sent', message: 'not sent: the run was interrupted' },
    ],
    [
      'not sent again after an attempt that may have been applied: unknown, and it says so',
      { kind: 'not_sent', message: 'not sent again: interrupted (last: HTTP 502)', mayHaveApplied: true },
      'request',
      { status: 'unknown', message: 'not sent again: interrupted (last: HTTP 502); it may have been applied' },
    ],
    [
      'a row an import refused names the import',
      { kind: 'failed', message: 'email: bad', importId: 'imp-7' },
      'bulk_import',
      { status: 'failed', message: 'bulk import imp-7: email: bad' },
    ],
    [
      'a refused row is named even when its message happens to hold the import id',
      { kind: 'failed', message: 'quantity: at most 7', importId: '7' },
      'bulk_import',
      { status: 'failed', message: 'bulk import 7: quantity: at most 7' },
    ],
    [
      'a row whose upload was refused, no import: "bulk import"',
      { kind: 'failed', message: 'the upload was refused: input_file: empty', importId: undefined },
      'bulk_import',
      { status: 'failed', message: 'bulk import: the upload was refused: input_file: empty' },
    ],
    [
      'an unknown bulk row whose message names its import is left as it is',
      { kind: 'unknown', message: 'import imp-2 did not end within 30 min', importId: 'imp-2' },
      'bulk_import',
      { status: 'unknown', message: 'import imp-2 did not end within 30 min' },
    ],
    [
      'an unknown bulk row whose message does not name its import gets it',
      { kind: 'unknown', message: 'gave up naming every failure after 1000 imports', importId: 'imp-3' },
      'bulk_import',
      { status: 'unknown', message: 'bulk import imp-3: gave up naming every failure after 1000 imports' },
    ],
    [
      'an unknown bulk row without an import id',
      { kind: 'unknown', message: 'HTTP 502; the upload may have created an import', importId: undefined },
      'bulk_import',
      { status: 'unknown', message: 'bulk import: HTTP 502; the upload may have created an import' },
    ],
  ];

  it.each(cases)('%s', (_, failure, via, line) => {
    expect(failureLine(failure, via)).toStrictEqual(line);
  });

  it('a row sent on its own is the default', () => {
    expect(failureLine({ kind: 'failed', status: 404, message: 'Not found.' })).toStrictEqual({
      status: 'failed',
      http_status: 404,
      message: 'Not found.',
    });
  });
});
