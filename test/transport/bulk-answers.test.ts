import { describe, expect, it } from 'vitest';
import { parseImportStatus, parseListedRow, parseUploadAnswer } from '../../src/transport/bulk-answers.js';

const STATUS = {
  id: 'imp-1',
  status: 'finished',
  total_count: 3,
  succeeded: 2,
  failed: 1,
  started_at: 't0',
  finished_at: 't1',
  author: 'api',
  rows_with_errors: [{ row: 3, data: { custom_id: 'C-2' }, errors: { email: ['Enter a valid email address.'] } }],
};

describe('parseUploadAnswer: both documented shapes', () => {
  it.each([
    [
      'the current shape {"success": true, "data": {"import_id"}}',
      { success: true, data: { import_id: 'imp-1' } },
      { importId: 'imp-1', status: undefined },
    ],
    ['an import_id without the envelope', { import_id: 'imp-1' }, { importId: 'imp-1', status: undefined }],
  ])('%s', (_case, body, expected) => {
    expect(parseUploadAnswer(body)).toEqual(expected);
  });

  it('the older shape: the whole status object (in the envelope or bare) gives the id and the status at once', () => {
    for (const body of [{ success: true, data: STATUS }, STATUS]) {
      const answer = parseUploadAnswer(body);
      expect(answer?.importId).toBe('imp-1');
      expect(answer?.status).toMatchObject({
        importId: 'imp-1',
        state: 'finished',
        totalCount: 3,
        succeeded: 2,
        failed: 1,
      });
    }
  });

  it.each([
    ['no id', { success: true, data: {} }],
    ['not an object', 'OK'],
    ['nothing', undefined],
    ['a blank id', { data: { import_id: ' ' } }],
  ])('%s → undefined', (_case, body) => {
    expect(parseUploadAnswer(body)).toBeUndefined();
  });
});

describe('parseImportStatus', () => {
  it('reads the documented fields; rows_with_errors elements become {row, data, message}', () => {
    expect(parseImportStatus({ success: true, data: STATUS }, 'imp-1')).toEqual({
      importId: 'imp-1',
      status: 'finished',
      state: 'finished',
      totalCount: 3,
      succeeded: 2,
      failed: 1,
      rowsWithErrors: [{ row: 3, data: { custom_id: 'C-2' }, message: 'email: Enter a valid email address.' }],
    });
  });

  it.each([
    ['running', 'running'],
    ['an unpublished running name (processing)', 'processing'],
    ['pending', 'pending'],
    ['an empty status', ''],
  ])('%s is read as still running', (_case, status) => {
    expect(parseImportStatus({ data: { ...STATUS, status } }, 'imp-1')?.state).toBe('running');
  });

  it.each(['failed', 'ERROR', 'cancelled', 'aborted'])(
    '"%s" is read as an import that ended without finishing',
    (status) => {
      expect(parseImportStatus({ data: { ...STATUS, status } }, 'imp-1')?.state).toBe('failed');
    },
  );

  it('counts as text are read; missing counts and a missing list are undefined and empty', () => {
    expect(parseImportStatus({ data: { status: 'finished', failed: '7' } }, 'imp-9')).toEqual({
      importId: 'imp-9',
      status: 'finished',
      state: 'finished',
      totalCount: undefined,
      succeeded: undefined,
      failed: 7,
      rowsWithErrors: [],
    });
  });

  it('an answer that is no status object → undefined', () => {
    expect(parseImportStatus({ success: true, data: [] }, 'x')).toBeUndefined();
    expect(parseImportStatus('<html>', 'x')).toBeUndefined();
  });
});

describe('parseListedRow: the element shape is not published', () => {
  it.each([
    [
      'this sandbox: {row, data, errors}',
      {
        row: 5,
        data: { custom_id: 'C' },
        errors: { first_name: ['Ensure this field has no more than 40 characters.'] },
      },
      { row: 5, data: { custom_id: 'C' }, message: 'first_name: Ensure this field has no more than 40 characters.' },
    ],
    [
      'no row number, only the values and a message string',
      { values: { email: 'x' }, error: 'Invalid email' },
      { row: undefined, data: { email: 'x' }, message: 'Invalid email' },
    ],
    [
      'a row number as text under line_number',
      { line_number: '12', messages: ['bad', 'worse'] },
      { row: 12, data: undefined, message: 'bad worse' },
    ],
    [
      'a detail',
      { row_number: 2, detail: 'Custom attribute "x" does not exist' },
      { row: 2, data: undefined, message: 'Custom attribute "x" does not exist' },
    ],
    ['nothing readable: the element itself', { foo: 1 }, { row: undefined, data: undefined, message: '{"foo":1}' }],
    ['a bare string', 'row 4: bad email', { row: undefined, data: undefined, message: 'row 4: bad email' }],
    ['a list (the row as cells)', ['C-1', 'bad'], { row: undefined, data: undefined, message: '["C-1","bad"]' }],
  ])('%s', (_case, element, expected) => {
    expect(parseListedRow(element)).toEqual(expected);
  });
});
