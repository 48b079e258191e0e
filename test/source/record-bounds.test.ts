import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createCsvCore } from '../../src/source/_csv-core.js';
import { RecordBounds } from '../../src/source/_record-bounds.js';

const LF = 0x0a;
const CR = 0x0d;
const QUOTE = 0x22;

interface Bounds {
  ends: number[];
  lines: number[];
  problemLines: number[];
}

/** Scan `text` cut into chunks of the given sizes (cycled), as the reader feeds it. */
function scan(text: Buffer, delimiter: string, sizes: readonly number[] = [text.length || 1]): Bounds {
  const bounds = new RecordBounds(delimiter.charCodeAt(0));
  const out: Bounds = { ends: [], lines: [], problemLines: [] };
  const take = () => {
    out.ends.push(...bounds.ends);
    out.lines.push(...bounds.lines);
    out.problemLines.push(...bounds.problemLines);
    bounds.drop(bounds.ends.length);
  };
  for (let at = 0, k = 0; at < text.length; k++) {
    const size = sizes[k % sizes.length]!;
    bounds.scan(text.subarray(at, at + size));
    at += size;
    take();
  }
  bounds.finish();
  take();
  return out;
}

/** The same rules written the obvious way, one byte at a time over the whole text. */
function reference(text: Buffer, delimiter: string): Bounds {
  const delim = delimiter.charCodeAt(0);
  const out: Bounds = { ends: [], lines: [], problemLines: [] };
  let line = 1;
  let inQuote = false;
  let inRecord = false;
  let start = 0;
  let problem = 0;
  let quoteLine = 0;
  const n = text.length;
  for (let i = 0; i < n; i++) {
    const b = text[i]!;
    const lineBreak = b === LF || b === CR;
    if (!inRecord && !lineBreak) {
      inRecord = true;
      start = line;
    }
    if (b === QUOTE) {
      if (!inQuote) {
        const prev = i === 0 ? LF : text[i - 1]!;
        if (prev === delim || prev === LF || prev === CR) {
          inQuote = true;
          quoteLine = line;
        } else problem ||= line;
      } else {
        const next = i + 1 < n ? text[i + 1]! : -1;
        if (next === QUOTE) i++;
        else if (next === -1 || next === 0 || next === delim || next === LF || next === CR) inQuote = false;
        else {
          // Invalid Closing Quote: the rest of the field is read unquoted.
          problem ||= line;
          inQuote = false;
        }
      }
    } else if (lineBreak) {
      line++;
      if (b === CR && text[i + 1] === LF) i++;
      if (!inQuote && inRecord) {
        out.ends.push(i + 1);
        out.lines.push(start);
        out.problemLines.push(problem);
        inRecord = false;
        problem = 0;
      }
    }
  }
  if (inRecord) {
    if (inQuote && problem === 0) problem = quoteLine;
    out.ends.push(n);
    out.lines.push(start);
    out.problemLines.push(problem);
  }
  return out;
}

/**
 * What csv-parse itself says, with the reader's options and its one change (after an Invalid
 * Closing Quote the field is read on unquoted): pushed records' ends, and its errors.
 */
function csvParse(text: Buffer, delimiter: string): { pushed: number[]; errors: number[] } {
  const errors: number[] = [];
  const pushed: number[] = [];
  const core = createCsvCore({
    delimiter,
    onSkip: (error) => {
      errors.push(core.info.bytes);
      if (error.code === 'CSV_INVALID_CLOSING_QUOTE') core.state.quoting = false;
    },
  });
  const push = () => pushed.push(core.info.bytes);
  expect(core.parse(text, false, push, () => undefined)).toBeUndefined();
  expect(core.parse(undefined, true, push, () => undefined)).toBeUndefined();
  return { pushed, errors };
}

const csvish = fc
  .array(fc.constantFrom('a', 'bc', ',', ';', '"', '""', '\n', '\r', '\r\n', ' ', '\0', 'é', '\t'), { maxLength: 60 })
  .map((parts) => Buffer.from(parts.join(''), 'utf8'));
const chunkSizes = fc.array(fc.integer({ min: 1, max: 7 }), { minLength: 1, maxLength: 5 });

describe('RecordBounds', () => {
  it.each([
    ['LF', 'a,b\n1,2\n3,4\n', [4, 8, 12], [1, 2, 3]],
    ['CRLF', 'a,b\r\n1,2\r\n', [5, 10], [1, 2]],
    ['CR', 'a,b\r1,2\r3,4', [4, 8, 11], [1, 2, 3]],
    ['blank lines skipped, counted', '\n\na\n\r\n\rb\n', [4, 9], [3, 6]],
    ['quoted CRLF is one line', 'a,"x\r\ny"\r\nb\n', [10, 12], [1, 3]],
    ['escaped quotes', 'a,"x""\n"\nb', [9, 10], [1, 3]],
    ['no final line break', 'a\nb', [2, 3], [1, 2]],
    ['mixed line ends', 'a\r\nb\nc\rd', [3, 5, 7, 8], [1, 2, 3, 4]],
  ])('%s', (_name, text, ends, lines) => {
    const bounds = scan(Buffer.from(text), ',');
    expect(bounds.ends).toEqual(ends);
    expect(bounds.lines).toEqual(lines);
    expect(bounds.problemLines.every((p) => p === 0)).toBe(true);
  });

  it.each([
    ['opening quote inside a field', 'id\n1,ab"c\n2\n', [2], 2],
    ['closing quote before a letter: the record ends with its line', 'id\n1,"ab"c\n2,"x"\n3\n', [2], 2],
    ['unclosed quote runs to the end, reported where it opened', 'id\n1\n2,x,"open\n3\n4\n', [3], 3],
    ['unclosed quote opened on a later line of its record', 'id\n1,"a\nb","c\nd\n', [2], 3],
  ])('%s', (_name, text, startLines, problemLine) => {
    const bounds = scan(Buffer.from(text), ',');
    const bad = bounds.problemLines.map((p, i) => (p > 0 ? i : -1)).filter((i) => i >= 0);
    expect(bad.map((i) => bounds.lines[i])).toEqual(startLines);
    expect(bad.map((i) => bounds.problemLines[i])).toEqual([problemLine]);
  });

  it('gives the same answer however the bytes are cut into chunks', () => {
    fc.assert(
      fc.property(csvish, chunkSizes, fc.constantFrom(',', ';', '\t', '|'), (text, sizes, delimiter) => {
        expect(scan(text, delimiter, sizes)).toEqual(reference(text, delimiter));
      }),
      { numRuns: 2000 },
    );
  });

  it('agrees with csv-parse: its records are ours, the ones it skips are the ones with a problem', () => {
    fc.assert(
      fc.property(csvish, fc.constantFrom(',', ';'), (text, delimiter) => {
        const bounds = scan(text, delimiter);
        const { pushed, errors } = csvParse(text, delimiter);
        const good = bounds.ends.filter((_, i) => bounds.problemLines[i] === 0);
        expect(good).toEqual(pushed);
        // Every skipped record has at least one csv-parse error within its bytes.
        bounds.ends.forEach((end, i) => {
          if (bounds.problemLines[i] === 0) return;
          const from = i === 0 ? 0 : bounds.ends[i - 1]!;
          expect(errors.some((at) => at >= from && at < end)).toBe(true);
        });
      }),
      { numRuns: 3000 },
    );
  });
});
