import { describe, expect, it } from 'vitest';
import { recordLengthMessage } from '../../src/source/_record-length.js';

describe("recordLengthMessage: columns counted from 1, with the header's names", () => {
  it.each([
    [['id', 'name', 'email'], 2, '2 fields, but the header has 3 columns: column 3 ("email") is missing'],
    [
      ['id', 'name', 'email'],
      1,
      '1 field, but the header has 3 columns: columns 2 ("name") to 3 ("email") are missing',
    ],
    [
      ['id', 'name'],
      3,
      '3 fields, but the header has 2 columns: field 3 is beyond the last column, 2 ("name") (a delimiter inside a value that is not quoted?)',
    ],
    [
      ['id'],
      4,
      '4 fields, but the header has 1 column: fields 2 to 4 are beyond the last column, 1 ("id") (a delimiter inside a value that is not quoted?)',
    ],
  ])('%j with %d fields', (header, count, message) => {
    expect(recordLengthMessage(header, count)).toBe(message);
  });
});
