import fc from 'fast-check';
import { stringify } from 'csv-stringify/sync';
import { describe, expect, it } from 'vitest';
import { csvLineFormatter } from '../../src/report/_csv-line.js';

// Cells made of the characters that matter to quoting, plus ordinary and non-ASCII text.
const cell = fc.string({
  unit: fc.constantFrom('a', 'Ż', ' ', '"', ',', ';', '\t', '|', '\r', '\n', "'", '=', '\\', '^', ']', '-'),
  maxLength: 8,
});
const row = fc.array(cell, { minLength: 1, maxLength: 6 });

describe('csvLineFormatter', () => {
  it.each([',', ';', '\t', '|'])('writes exactly what csv-stringify writes, delimiter %j', (delimiter) => {
    const format = csvLineFormatter(delimiter);
    fc.assert(
      fc.property(row, (cells) => {
        expect(format(cells)).toBe(
          stringify([cells], { delimiter, record_delimiter: 'unix', quote_record_delimiter: true }),
        );
      }),
      { numRuns: 2000 },
    );
  });

  it('joins plain cells and quotes only the cells that need it', () => {
    const format = csvLineFormatter(',');
    expect(format(['a', '', 'b c'])).toBe('a,,b c\n');
    expect(format(['a,b', 'say "hi"', 'x'])).toBe('"a,b","say ""hi""",x\n');
    expect(format(['two\nlines', 'ok'])).toBe('"two\nlines",ok\n');
    // A lone CR is a line break to every reader: quoted too (csv-stringify leaves it bare unless told).
    expect(format(['a\rb', 'ok'])).toBe('"a\rb",ok\n');
  });
});
