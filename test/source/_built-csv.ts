import fc from 'fast-check';
import { recordLengthMessage } from '../../src/source/_record-length.js';

/** A CSV file built from known records, with what the reader must yield for each. */
export interface Built {
  text: string;
  delimiter: ',' | ';' | '\t' | '|';
  /** `[line, cells]` for a row, `[line, message]` for a malformed record (file named data.csv). */
  expected: [number, string[] | string][];
}

const LINE_BREAKS = /\r\n|\r|\n/g;
const lineAt = (text: string, offset: number) => (text.slice(0, offset).match(LINE_BREAKS) ?? []).length + 1;
/** The reader's message for a malformed record on lines `line` to `last`. */
const malformed = (line: number, last: number, reason: string) =>
  last > line
    ? `data.csv lines ${line}–${last}: ${reason} (the parser read lines ${line}–${last} as this one record: check its quotes)`
    : `data.csv line ${line}: ${reason}`;

/**
 * Records of arbitrary cells (quotes, delimiters, every line end inside), some with a wrong field
 * count or a stray quote, blank lines between, any line ends, maybe an unclosed quote at the end.
 */
export const builtCsv: fc.Arbitrary<Built> = fc
  .record({
    delimiter: fc.constantFrom(',', ';', '\t', '|'),
    width: fc.integer({ min: 1, max: 4 }),
    records: fc.array(
      fc.record({
        kind: fc.constantFrom('good', 'good', 'good', 'short', 'long', 'quote'),
        cells: fc.array(
          fc
            .array(fc.constantFrom('a', 'Z', ' ', ',', ';', '"', '\n', '\r\n', '\r', 'é', '\t', '|', '0'), {
              maxLength: 5,
            })
            .map((p) => p.join('')),
          {
            minLength: 5,
            maxLength: 5,
          },
        ),
        end: fc.constantFrom('\n', '\r\n', '\r'),
        blanks: fc.array(fc.constantFrom('\n', '\r\n', '\r'), { maxLength: 2 }),
      }),
      { maxLength: 12 },
    ),
    unclosedAtEnd: fc.boolean(),
    finalLineBreak: fc.boolean(),
  })
  .map(({ delimiter, width, records, unclosedAtEnd, finalLineBreak }) => {
    const quote = (cell: string, alone: boolean) =>
      /[",;\t|\r\n]/.test(cell) || (alone && cell === '') ? `"${cell.replaceAll('"', '""')}"` : cell;
    const serialise = (cells: string[]) => cells.map((c) => quote(c, cells.length === 1)).join(delimiter);
    const header = Array.from({ length: width }, (_, i) => `c${i}`);
    let text = `${serialise(header)}\n`;
    const expected: Built['expected'] = [];
    records.forEach((r, i) => {
      const count = r.kind === 'short' ? width - 1 : r.kind === 'long' ? width + 1 : width;
      if (count === 0) return;
      const cells = r.cells.slice(0, count);
      const start = text.length;
      const line = lineAt(text, start);
      if (r.kind === 'quote') {
        text += ['x"y', ...cells.slice(1).map((c) => quote(c, false))].join(delimiter);
        expected.push([
          line,
          malformed(
            line,
            lineAt(text, text.length),
            `Invalid Opening Quote: a quote is found in column 1 ("c0") at line ${line}, value is "x"`,
          ),
        ]);
      } else {
        text += serialise(cells);
        const last = lineAt(text, text.length);
        expected.push([line, count === width ? cells : malformed(line, last, recordLengthMessage(header, count))]);
      }
      if (i < records.length - 1 || finalLineBreak || unclosedAtEnd) text += r.end + r.blanks.join('');
    });
    if (unclosedAtEnd) {
      const line = lineAt(text, text.length);
      text += `u${delimiter}"never closed\nmore${delimiter}lines\n`;
      expected.push([
        line,
        malformed(line, line + 1, `Quote Not Closed: the parsing is finished with an opening quote at line ${line}`),
      ]);
    }
    return { text, delimiter, expected };
  });
