import { execFileSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import fc from 'fast-check';
import iconv from 'iconv-lite';
import { describe, expect, it } from 'vitest';
import { SourceError } from '../../src/errors.js';
import { createCsvCore } from '../../src/source/_csv-core.js';
import { openCsv, type CsvSourceOptions, type SourceItem } from '../../src/source/csv-source.js';
import { tmpTree } from '../helpers/tmp.js';
import { builtCsv } from './_built-csv.js';

const FIXTURES = fileURLToPath(new URL('../fixtures/csv/', import.meta.url));

async function collect(items: AsyncIterable<SourceItem>): Promise<SourceItem[]> {
  const out: SourceItem[] = [];
  for await (const item of items) out.push(item);
  return out;
}

/** Write `content` as `name` in a fresh folder, open it and read every item. */
async function read(content: string | Buffer, options: Omit<CsvSourceOptions, 'path'> = {}, name = 'data.csv') {
  const dir = tmpTree({ [name]: content });
  const source = await openCsv({ path: join(dir, name), ...options });
  return { source, items: await collect(source.items) };
}

/** What a user sees of an item: its line, and its cells or its message. */
function seen(items: readonly SourceItem[]): [number, string[] | string][] {
  return items.map((i) => [i.line, i.kind === 'row' ? [...i.fields] : i.message]);
}

async function failure(promise: Promise<unknown>): Promise<SourceError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(SourceError);
  return error as SourceError;
}

describe('openCsv: lines and line ends', () => {
  it('reads a BOM, CRLF file with a quoted newline and a blank line (fixture)', async () => {
    const source = await openCsv({ path: join(FIXTURES, 'contacts-bom-crlf.csv') });
    expect(source.header).toEqual(['custom_id', 'email', 'note']);
    const items = await collect(source.items);
    expect(seen(items)).toEqual([
      [2, ['C-1', 'ann@example.com', 'first line\r\nsecond line']],
      [5, ['C-2', 'bob@example.com', 'plain']],
      [6, ['C-3', 'cy@example.com', 'quoted "nick"']],
    ]);
    expect(items[0]).toMatchObject({ kind: 'row', values: { custom_id: 'C-1', email: 'ann@example.com' } });
  });

  it.each([
    ['LF', 'a,b\n1,2\n3,4\n'],
    ['CRLF', 'a,b\r\n1,2\r\n3,4\r\n'],
    ['CR', 'a,b\r1,2\r3,4\r'],
    ['no final line break', 'a,b\n1,2\n3,4'],
    ['mixed', 'a,b\r\n1,2\n3,4\r'],
  ])('%s line ends', async (_name, text) => {
    const { items } = await read(text);
    expect(seen(items)).toEqual([
      [2, ['1', '2']],
      [3, ['3', '4']],
    ]);
  });

  it.each([
    ['LF', '\n'],
    ['CRLF', '\r\n'],
    ['CR', '\r'],
  ])('a record starts on its first line, quoted newlines counted once (%s)', async (_name, nl) => {
    const text = ['id,note', `1,"one${nl}two${nl}three"`, '2,x', `3,"${nl}"`, '4,y', ''].join(nl);
    const { items } = await read(text);
    expect(seen(items)).toEqual([
      [2, ['1', `one${nl}two${nl}three`]],
      [5, ['2', 'x']],
      [6, ['3', nl]],
      [8, ['4', 'y']],
    ]);
  });

  it('skips blank lines but counts them, before the header too', async () => {
    const { source, items } = await read('\n\r\nid,n\n\n1,a\n\n\n2,b\n\n');
    expect(source.header).toEqual(['id', 'n']);
    expect(seen(items)).toEqual([
      [5, ['1', 'a']],
      [8, ['2', 'b']],
    ]);
  });
});

describe('openCsv: delimiters', () => {
  it.each([
    [',', 'a,b|c\n1,2|3\n', ['1', '2|3']],
    [';', 'a;b,c\n1;2,3\n', ['1', '2,3']],
    ['\t', 'a\tb;c\n1\t2;3\n', ['1', '2;3']],
    ['|', 'a|b\tc\n1|2\t3\n', ['1', '2\t3']],
  ] as const)('uses %j as told', async (delimiter, text, fields) => {
    const { source, items } = await read(text, { delimiter });
    expect(source.delimiter).toBe(delimiter);
    expect(seen(items)).toEqual([[2, fields]]);
  });

  it.each([
    ['commas', 'a,b,c\n1,2,3\n', ','],
    ['semicolons', 'a;b;c\n1;2;3\n', ';'],
    ['tabs', 'a\tb\tc\n1\t2\t3\n', '\t'],
    ['pipes', 'a|b|c\n1|2|3\n', '|'],
    ['the most frequent one wins', 'a;b;c,d\n1;2;3,4\n', ';'],
    ['quoted candidates do not count', '"a;b;c",d,e\n1,2,3\n', ','],
    ['a tie goes to the first of , ; tab |', 'a;b|c\n1;2|3\n', ';'],
    ['none: a single column', 'email\nx@example.com\n', ','],
    ['blank lines before the header are passed over', '\n\na;b\n1;2\n', ';'],
  ])('auto: %s', async (_name, text, expected) => {
    const { source } = await read(text, { delimiter: 'auto' });
    expect(source.delimiter).toBe(expected);
  });

  it('auto on a fixture: semicolons, a quoted semicolon in a cell', async () => {
    const source = await openCsv({ path: join(FIXTURES, 'products-semicolon.csv'), delimiter: 'auto' });
    expect(source.delimiter).toBe(';');
    expect(seen(await collect(source.items))).toEqual([
      [2, ['A-1', 'Kawa; ziarnista', '12,50']],
      [3, ['A-2', 'Herbata', '7,99']],
    ]);
  });
});

describe('openCsv: encodings', () => {
  const polish = 'name;city\nZażółć gęślą jaźń;Łódź\nŘeřicha Šťastný;Brno\n';

  it('decodes windows-1250 (Polish and Czech letters)', async () => {
    const { items } = await read(iconv.encode(polish, 'windows-1250'), { encoding: 'windows-1250', delimiter: ';' });
    expect(seen(items)).toEqual([
      [2, ['Zażółć gęślą jaźń', 'Łódź']],
      [3, ['Řeřicha Šťastný', 'Brno']],
    ]);
  });

  it.each([
    ['utf-16le with BOM', iconv.encode(polish, 'utf-16le', { addBOM: true }), 'utf-16le'],
    ['utf-16be with BOM', Buffer.concat([Buffer.from([0xfe, 0xff]), iconv.encode(polish, 'utf-16be')]), 'utf-16be'],
    [
      'utf-16 picks the order from the BOM',
      Buffer.concat([Buffer.from([0xfe, 0xff]), iconv.encode(polish, 'utf-16be')]),
      'utf-16',
    ],
    ['utf-8 with BOM', Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(polish)]), 'utf-8'],
    ['iso-8859-2', iconv.encode(polish.replace('Řeřicha Šťastný', 'Šťastný'), 'iso-8859-2'), 'iso-8859-2'],
  ])('decodes %s', async (_name, bytes, encoding) => {
    const { source, items } = await read(bytes, { encoding, delimiter: 'auto' });
    expect(source.header).toEqual(['name', 'city']);
    expect(items[0]).toMatchObject({ line: 2, values: { name: 'Zażółć gęślą jaźń', city: 'Łódź' } });
  });

  it('decodes latin1 (and windows-1252)', async () => {
    const text = 'name,city\nJosé Müller,Zürich\nFrançoise,Besançon\n';
    for (const encoding of ['latin1', 'windows-1252']) {
      const { items } = await read(iconv.encode(text, encoding), { encoding });
      expect(seen(items)).toEqual([
        [2, ['José Müller', 'Zürich']],
        [3, ['Françoise', 'Besançon']],
      ]);
    }
  });

  it.each([
    [
      'a latin1 byte in a utf-8 file',
      Buffer.concat([Buffer.from('id,name\n1,ok\n2,caf'), Buffer.from([0xe9]), Buffer.from(';x\n')]),
      'utf-8',
      'data.csv is not valid utf-8: byte 0xE9 at line 3 (byte offset 18) cannot be decoded.',
    ],
    [
      'a utf-8 file cut in the middle of a character',
      Buffer.concat([Buffer.from('id,name\n1,ż'), Buffer.from([0xc5])]),
      'utf-8',
      'data.csv is not valid utf-8: byte 0xC5 at line 2 (byte offset 12) cannot be decoded.',
    ],
    [
      'a byte windows-1250 leaves undefined',
      Buffer.concat([Buffer.from('id;name\r\n1;ok\r\n2;'), Buffer.from([0x81]), Buffer.from('x\r\n')]),
      'windows-1250',
      'data.csv is not valid windows-1250: byte 0x81 at line 3 (byte offset 17) is not defined in that code page.',
    ],
    [
      'an unpaired surrogate in utf-16le',
      Buffer.concat([iconv.encode('\ufeffid\n1\n', 'utf-16le'), Buffer.from([0x00, 0xd8, 0x41, 0x00])]),
      'utf-16le',
      'data.csv is not valid utf-16le: bytes 0x00 0xD8 at line 3 (byte offset 12) cannot be decoded.',
    ],
  ])('rejects %s, saying where', async (_name, bytes, encoding, message) => {
    const error = await failure(read(bytes, { encoding }));
    expect(error.code).toBe('CSV_ENCODING');
    expect(error.message).toBe(`${message} Set the mapping's source.encoding to the file's real encoding.`);
  });

  it('rejects mid-way with a SourceError after the rows before it, and never yields U+FFFD', async () => {
    const good = Array.from({ length: 5000 }, (_, i) => `${i},café ${i}\n`).join('');
    const bytes = Buffer.concat([Buffer.from(`id,name\n${good}`), Buffer.from([0x36, 0x2c, 0xff, 0x0a])]);
    const dir = tmpTree({ 'big.csv': bytes });
    const source = await openCsv({ path: join(dir, 'big.csv') });
    const items: SourceItem[] = [];
    const error = await failure(
      (async () => {
        for await (const item of source.items) items.push(item);
      })(),
    );
    expect(error.code).toBe('CSV_ENCODING');
    expect(error.message).toBe(
      `big.csv is not valid utf-8: byte 0xFF at line 5002 (byte offset ${bytes.length - 2}) cannot be decoded. Set the mapping's source.encoding to the file's real encoding.`,
    );
    expect(items.length).toBeGreaterThan(0);
    expect(items.length).toBeLessThan(5000);
    expect(items.some((i) => i.kind === 'row' && i.fields.some((f) => f.includes('\uFFFD')))).toBe(false);
  });

  it.each([
    [
      'a UTF-16LE BOM read as utf-8',
      iconv.encode('id\n1\n', 'utf-16le', { addBOM: true }),
      'utf-8',
      "data.csv starts with a UTF-16LE byte order mark, but its encoding is set to utf-8. Set the mapping's source.encoding to utf-16le.",
    ],
    [
      'a UTF-8 BOM read as windows-1250',
      Buffer.from('\ufeffid\n1\n'),
      'windows-1250',
      "data.csv starts with a UTF-8 byte order mark, but its encoding is set to windows-1250. Set the mapping's source.encoding to utf-8.",
    ],
    [
      'a UTF-8 BOM read as utf-16le',
      Buffer.from('\ufeffid\n1\n'),
      'utf-16le',
      "data.csv starts with a UTF-8 byte order mark, but its encoding is set to utf-16le. Set the mapping's source.encoding to utf-8.",
    ],
  ])('rejects %s', async (_name, bytes, encoding, message) => {
    const error = await failure(read(bytes, { encoding }));
    expect(error.code).toBe('CSV_ENCODING');
    expect(error.message).toBe(message);
  });

  it('rejects an encoding nobody knows, before reading', async () => {
    const error = await failure(read('id\n1\n', { encoding: 'klingon-8' }));
    expect(error.code).toBe('CSV_ENCODING');
    expect(error.message).toMatch(/data\.csv: unknown encoding "klingon-8"/);
  });
});

describe('openCsv: malformed records', () => {
  it('turns each bad record into one malformed item and reads on (fixture)', async () => {
    const source = await openCsv({ path: join(FIXTURES, 'malformed.csv') });
    const items = await collect(source.items);
    expect(seen(items)).toEqual([
      [2, ['1', 'Ann', 'Paris']],
      [3, 'malformed.csv line 3: 2 fields, but the header has 3 columns: column 3 ("city") is missing'],
      [
        4,
        'malformed.csv line 4: 4 fields, but the header has 3 columns: field 4 is beyond the last column, 3 ("city") (a delimiter inside a value that is not quoted?)',
      ],
      // The quote opened on line 5 runs on until csv-parse meets the next quote, on line 7.
      [
        5,
        'malformed.csv lines 5–7: Invalid Closing Quote: got "F" in column 2 ("name") at line 7 instead of delimiter, record delimiter, trimable character (if activated) or comment (the parser read lines 5–7 as this one record: check its quotes)',
      ],
      [8, ['7', 'Gus', 'Bonn']],
      // Unclosed at the end: the rest of the file is this one record, reported once.
      [
        9,
        'malformed.csv lines 9–10: Quote Not Closed: the parsing is finished with an opening quote at line 9 (the parser read lines 9–10 as this one record: check its quotes)',
      ],
    ]);
    expect(items.map((i) => i.fields)).toEqual([
      ['1', 'Ann', 'Paris'],
      ['2', 'Bob'],
      ['3', 'Cy', 'Rome', 'extra'],
      ['4'],
      ['7', 'Gus', 'Bonn'],
      ['8', 'Hal'],
    ]);
  });

  it.each([
    [
      'too few fields',
      'a,b,c\n1,2\n',
      [2, 'data.csv line 2: 2 fields, but the header has 3 columns: column 3 ("c") is missing'],
    ],
    [
      'too many fields in a record a quoted line break spreads over three lines: each line named',
      'a,b\n1,"x\ny\nz",3\n',
      [
        2,
        'data.csv lines 2–4: 3 fields, but the header has 2 columns: field 3 is beyond the last column, 2 ("b") (a delimiter inside a value that is not quoted?) (the parser read lines 2–4 as this one record: check its quotes)',
      ],
    ],
    [
      'too many fields',
      'a,b\n1,2,3\n',
      [
        2,
        'data.csv line 2: 3 fields, but the header has 2 columns: field 3 is beyond the last column, 2 ("b") (a delimiter inside a value that is not quoted?)',
      ],
    ],
    [
      'a quote inside an unquoted field',
      'a,b\n1,x"y\n',
      [2, 'data.csv line 2: Invalid Opening Quote: a quote is found in column 2 ("b") at line 2, value is "x"'],
    ],
    [
      'an unclosed quote at the end, opened on the second line of its record',
      'a,b,c\n1,"multi\nline","open\nrest\n',
      [
        2,
        'data.csv lines 2–4: Quote Not Closed: the parsing is finished with an opening quote at line 3 (the parser read lines 2–4 as this one record: check its quotes)',
      ],
    ],
  ])('%s', async (_name, text, expected) => {
    const { items } = await read(text);
    expect(seen(items)).toEqual([expected]);
  });

  it('corrects csv-parse line numbers that count a quoted CRLF twice', async () => {
    const { items } = await read('a,b\r\n1,"x\r\ny\r\nz"\r\n2,x"y\r\n');
    expect(seen(items)).toEqual([
      [2, ['1', 'x\r\ny\r\nz']],
      [5, 'data.csv line 5: Invalid Opening Quote: a quote is found in column 2 ("b") at line 5, value is "x"'],
    ]);
  });
});

describe('openCsv: header', () => {
  it.each([
    [
      'two duplicated names',
      'id,email,name,email,id\n',
      'data.csv line 1: duplicate column names in the header: "id" (columns 1, 5), "email" (columns 2, 4); every column needs its own name',
    ],
    [
      'a column without a name between named ones',
      'id, ,email\n',
      'data.csv line 1: column 2 of the header has no name; every column needs its own name',
    ],
    [
      'blank names only',
      ' , ,\n',
      'data.csv line 1: columns 1, 2, 3 of the header have no name; every column needs its own name',
    ],
  ])('rejects %s', async (_name, text, message) => {
    const error = await failure(read(`${text}1,2,3\n`));
    expect(error.code).toBe('CSV_DUPLICATE_HEADER');
    expect(error.message).toBe(message);
  });

  it("reads a spreadsheet's trailing delimiters as no columns: their empty cells are dropped, a value there makes its row malformed", async () => {
    const { source, items } = await read(
      'id;email;;\n1;a@example.com;;\n2;b@example.com; ;\n3;c@example.com;;x\n4;d@example.com\n',
      {
        delimiter: ';',
      },
    );
    expect(source.header).toEqual(['id', 'email']);
    expect(items.map((i) => (i.kind === 'row' ? i.fields : i.message))).toEqual([
      ['1', 'a@example.com'],
      ['2', 'b@example.com'],
      'data.csv line 4: field 4 holds a value, but its column has no name in the header (a value after the last named column, "email")',
      ['4', 'd@example.com'],
    ]);
  });

  it.each([
    ['an empty file', ''],
    ['blank lines only', '\n\r\n\n'],
    ['a BOM only', '\ufeff'],
  ])('rejects %s: there is no header', async (_name, text) => {
    const error = await failure(read(text));
    expect(error.code).toBe('CSV_READ');
    expect(error.message).toBe('data.csv: the file is empty; a header line naming the columns is expected');
  });

  it('rejects a header it cannot parse', async () => {
    const error = await failure(read('id,"name\n1,2\n'));
    expect(error.code).toBe('CSV_READ');
    expect(error.message).toBe(
      'data.csv line 1: the header cannot be read: Quote Not Closed: the parsing is finished with an opening quote at line 1',
    );
  });

  it('reads a header-only file: no items', async () => {
    const { source, items } = await read('id,name\r\n');
    expect(source.header).toEqual(['id', 'name']);
    expect(items).toEqual([]);
  });

  it('keeps odd column names as plain keys', async () => {
    const { items } = await read('__proto__,constructor,"a""b",toString\n1,2,3,4\n');
    const values = (items[0] as Extract<SourceItem, { kind: 'row' }>).values;
    expect(Object.keys(values)).toEqual(['__proto__', 'constructor', 'a"b', 'toString']);
    expect(Object.getOwnPropertyDescriptor(values, '__proto__')?.value).toBe('1');
    expect(Object.getPrototypeOf(values)).toBe(Object.prototype);
  });
});

describe('openCsv: the file', () => {
  it('names the path of a missing file', async () => {
    const path = join(tmpTree(), 'nope', 'events.csv');
    const error = await failure(openCsv({ path }));
    expect(error.code).toBe('CSV_READ');
    expect(error.message).toBe(`${path}: file not found`);
  });

  it('names the path of a directory', async () => {
    const path = join(tmpTree(), 'folder.csv');
    mkdirSync(path);
    const error = await failure(openCsv({ path }));
    expect(error.code).toBe('CSV_READ');
    expect(error.message).toBe(`${path}: is a directory, not a file`);
  });

  it('a record holding NUL bytes (a file padded with zeros) is malformed, not a row', async () => {
    const { items } = await read(`id,name\n1,Ann\n2,A\0n\n${'\0'.repeat(100)}`);
    expect(items.map((i) => (i.kind === 'row' ? `${i.line}:row` : `${i.line}:${i.message}`))).toEqual([
      '2:row',
      '3:data.csv line 3: holds NUL bytes (0x00), which no text holds: the file may be damaged or cut short',
      '4:data.csv line 4: holds NUL bytes (0x00), which no text holds: the file may be damaged or cut short',
    ]);
  });

  it('refuses a pipe by name, without waiting for a writer', async () => {
    const path = join(tmpTree(), 'export.csv');
    execFileSync('mkfifo', [path]);
    const error = await failure(openCsv({ path }));
    expect(error.code).toBe('CSV_READ');
    expect(error.message).toBe(
      `${path}: is a pipe, not a regular file: save it to a file first (the input is read more than once)`,
    );
  });

  it('stops when the consumer stops, and the items are read once', async () => {
    const dir = tmpTree({ 'big.csv': `id\n${Array.from({ length: 100_000 }, (_, i) => i).join('\n')}\n` });
    const source = await openCsv({ path: join(dir, 'big.csv') });
    let count = 0;
    for await (const item of source.items) {
      if (++count === 3) break;
      expect(item.kind).toBe('row');
    }
    source.close();
    source.close();
    expect(count).toBe(3);
    expect(() => source.items[Symbol.asyncIterator]()).toThrow(/iterated only once/);
  });

  it('close() before iterating ends the items at once', async () => {
    const source = await openCsv({ path: join(tmpTree({ 'x.csv': 'id\n1\n2\n' }), 'x.csv') });
    source.close();
    expect(await collect(source.items)).toEqual([]);
  });
});

describe('openCsv: properties', () => {
  it('yields exactly one item per record, on the line where it starts', async () => {
    await fc.assert(
      fc.asyncProperty(builtCsv, async ({ text, delimiter, expected }) => {
        const { items } = await read(text, { delimiter });
        expect(seen(items)).toEqual(expected);
      }),
      { numRuns: 300 },
    );
  });

  it('never throws on arbitrary text but a SourceError for the header; rows are what csv-parse reads', async () => {
    const text = fc
      .array(fc.constantFrom('a', 'b', ',', '"', '""', '\n', '\r', '\r\n', ' ', 'é'), { maxLength: 40 })
      .map((p) => p.join(''));
    await fc.assert(
      fc.asyncProperty(text, async (content) => {
        let result: Awaited<ReturnType<typeof read>>;
        try {
          result = await read(content);
        } catch (error) {
          expect(error).toBeInstanceOf(SourceError);
          expect(['CSV_READ', 'CSV_DUPLICATE_HEADER']).toContain((error as SourceError).code);
          return;
        }
        const { source, items } = result;
        const lines = items.map((i) => i.line);
        expect(lines).toEqual([...new Set(lines)].sort((a, b) => a - b));
        // csv-parse with the reader's options and its one change: after an Invalid Closing Quote
        // the field is read on unquoted (`"Bob" Jr` ends its record with its line).
        const parsed: string[][] = [];
        const core = createCsvCore({
          delimiter: ',',
          onSkip: (error) => {
            if (error.code === 'CSV_INVALID_CLOSING_QUOTE') core.state.quoting = false;
          },
        });
        const push = (record: string[]) => parsed.push(record);
        core.parse(Buffer.from(content), false, push, () => undefined);
        core.parse(undefined, true, push, () => undefined);
        const pushed = items.filter((i) => i.kind === 'row' || i.message.includes(', but the header has '));
        // The header's nameless last columns are no columns: their empty cells are dropped, and a
        // row with a value there is malformed (not compared).
        const [head = [], ...records] = parsed;
        let named = head.length;
        while (named > 0 && head[named - 1]!.trim() === '') named--;
        const header = named === 0 ? head : head.slice(0, named);
        const expected = records.flatMap((r) => {
          if (r.length <= header.length || r.length > head.length) return [r];
          return r.slice(header.length).every((f) => f.trim() === '') ? [r.slice(0, header.length)] : [];
        });
        expect([source.header, ...pushed.map((i) => i.fields)]).toEqual([header, ...expected]);
      }),
      { numRuns: 500 },
    );
  });

  it('never throws on arbitrary bytes but a SourceError, and CSV_ENCODING exactly when they are not UTF-8', async () => {
    await fc.assert(
      fc.asyncProperty(fc.uint8Array({ maxLength: 40 }), async (bytes) => {
        const valid = (() => {
          try {
            new TextDecoder('utf-8', { fatal: true }).decode(bytes);
            return true;
          } catch {
            return false;
          }
        })();
        let code: string | undefined;
        try {
          await read(Buffer.from(bytes));
        } catch (error) {
          expect(error).toBeInstanceOf(SourceError);
          code = (error as SourceError).code;
        }
        if (valid) expect(code).not.toBe('CSV_ENCODING');
        else expect(code).toBe('CSV_ENCODING');
      }),
      { numRuns: 300 },
    );
  });
});

describe('openCsv: the raw text of a record the parser cannot split', () => {
  it.each([
    ['a quote inside a field', 'a,b\n1,x"y\n2,z\n', { line: 2, raw: '1,x"y' }],
    [
      'an unclosed quote that swallows the rest of the file',
      'a,b\n1,"x\r\n2,y\r\n3,z\r\n',
      { line: 2, raw: '1,"x\r\n2,y\r\n3,z' },
    ],
  ])('%s: kept whole', async (_name, text, expected) => {
    for (const chunkBytes of [undefined, 1, 3]) {
      const dir = tmpTree({ 'data.csv': text });
      const { CsvReader } = await import('../../src/source/_csv-reader.js');
      const reader = await CsvReader.open(
        join(dir, 'data.csv'),
        'utf-8',
        ',',
        chunkBytes === undefined ? {} : { chunkBytes },
      );
      const items = await collect({ [Symbol.asyncIterator]: () => reader.iterate() });
      const bad = items.find((i) => i.kind === 'malformed');
      expect(bad && { line: bad.line, raw: 'raw' in bad ? bad.raw : undefined }).toEqual(expected);
    }
  });
});
