import { describe, expect, it } from 'vitest';
import { detectDelimiter } from '../../src/source/_detect-delimiter.js';

describe('detectDelimiter', () => {
  it.each([
    ['a,b,c\n', ',', true],
    ['a;b;c\r\n', ';', true],
    ['a\tb\tc\r', '\t', true],
    ['a|b|c', '|', false],
    ['"x,y,z";a;b\n', ';', true],
    ['"a\nb";c\n', ';', true],
    ['a,b;c|d\n', ',', true],
    ['name\n', ',', true],
    ['\n\r\n', ',', false],
    ['', ',', false],
  ])('%j → %j (line complete: %s)', (text, delimiter, complete) => {
    expect(detectDelimiter(Buffer.from(text))).toEqual({ delimiter, complete });
  });
});
