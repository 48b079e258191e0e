import { describe, expect, it } from 'vitest';
import { validateHeader } from '../../src/source/_header.js';

describe('validateHeader', () => {
  it.each([
    [['id', 'ID', 'Id '], undefined],
    [
      ['id', 'name', 'id'],
      'e.csv line 1: duplicate column names in the header: "id" (columns 1, 3); every column needs its own name',
    ],
    [
      ['', 'id', '', 'id'],
      'e.csv line 1: duplicate column names in the header: "id" (columns 2, 4); columns 1, 3 of the header have no name; every column needs its own name',
    ],
    [['id', '  '], 'e.csv line 1: column 2 of the header has no name; every column needs its own name'],
  ])('%j', (header, message) => {
    const check = () => validateHeader(header, 'e.csv line 1');
    if (message === undefined) expect(check).not.toThrow();
    else expect(check).toThrow(expect.objectContaining({ code: 'CSV_DUPLICATE_HEADER', message }));
  });
});
