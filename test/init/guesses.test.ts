import iconv from 'iconv-lite';
import { describe, expect, it } from 'vitest';
import { detectEncoding } from '../../src/init/detect-encoding.js';
import { guessType } from '../../src/init/guess-type.js';
import { matchColumns } from '../../src/init/match-columns.js';
import { TARGETS } from '../../src/init/targets.js';

describe('matchColumns', () => {
  it('tries exact names, then case/space/underscore, then synonyms, then edit distance, each column once', () => {
    const { matches, unmatched } = matchColumns(
      ['Email', 'custom_id', 'SURNAME', 'frist_name', 'loyalty'],
      TARGETS.user.fields,
    );
    expect(matches.map((m) => [m.field.target, m.column, m.how])).toEqual([
      ['custom_id', 'custom_id', 'exact name'],
      ['email', 'Email', 'name ignoring case, spaces and underscores'],
      ['first_name', 'frist_name', 'similar name'],
      ['last_name', 'SURNAME', 'synonym'],
    ]);
    expect(unmatched).toEqual(['loyalty']);
  });

  it('a loose rule never takes a column a stricter rule gives to another field', () => {
    // `title` is a synonym of product `name`; the exact `name` column wins it, `title` stays free.
    const { matches, unmatched } = matchColumns(['title', 'name', 'sku'], TARGETS.product.fields);
    expect(matches.map((m) => [m.field.target, m.column])).toEqual([
      ['custom_id', 'sku'],
      ['name', 'name'],
    ]);
    expect(unmatched).toEqual(['title']);
  });

  it('short names are never matched by edit distance', () => {
    expect(matchColumns(['tax'], TARGETS.user.fields).matches).toEqual([]);
  });
});

describe('guessType', () => {
  it.each([
    [['1', '42', '-7'], undefined, { type: 'integer' }],
    [['1.5', '42', '0.25'], undefined, { type: 'number' }],
    [['yes', 'No', 'TRUE'], undefined, { type: 'boolean' }],
    [['a;b', 'c', 'd;e;f'], undefined, { type: 'list', separator: ';' }],
    [['2026-01-05', '2026-02-01'], undefined, { type: 'date' }],
    [['2026-01-05T10:00:00Z', '2026-02-01 08:00'], undefined, { type: 'datetime' }],
    [['31.12.2026', '01.02.2026'], undefined, { type: 'date', format: 'dd.MM.yyyy' }],
    [['12/31/2026', '01/02/2026'], undefined, { type: 'date', format: 'MM/dd/yyyy' }],
    [['1767600000', '1767600100'], undefined, { type: 'unix' }],
    [['1767600000', '1767600100'], 'text', {}],
    [['00123', '00124'], 'text', {}],
    [
      ['won', 'lost', 'Open'],
      'deal-status',
      { type: 'integer', map: { abandoned: 0, open: 1, 'in progress': 1, won: 2, lost: 3, archived: 4 } },
    ],
    [['2', '3'], 'deal-status', { type: 'integer' }],
    [['plain text', 'more'], undefined, {}],
  ] as const)('%j (%s) → %j', (values, expect_, options) => {
    const guess = guessType(values, expect_);
    expect(guess.options).toEqual(options);
    expect(guess.undecided).toBeUndefined();
  });

  it('a known field tolerates one odd value in twenty (the row validate will report); a custom column none', () => {
    const values = ['1', '2', '3', '4', 'x'];
    expect(guessType(values, 'integer')).toEqual({
      options: { type: 'integer' },
      why: '4/5 sampled values are integers',
    });
    expect(guessType(values, undefined).options).toEqual({});
  });

  it('a known number field written with a decimal comma is read with decimal_comma, one misfit allowed', () => {
    expect(guessType(['1,50', '2,75', '3,10'], 'number')).toEqual({
      options: { type: 'number', decimal_comma: true },
      why: '3/3 sampled values are numbers with a decimal comma',
    });
    expect(guessType(['1.50', '2,75', '3,10'], 'number').why).toBe(
      '2/3 sampled values are numbers with a decimal comma',
    );
  });

  it('a known number field that no reading fits says none is a number, or not every one', () => {
    expect(guessType(['n/a', 'free', 'tbd'], 'number').why).toBe(
      'expected numbers, but none of the 3 sampled values is one (see the check at the top)',
    );
    expect(guessType(['1.50', 'free', 'tbd'], 'number').why).toBe(
      'expected numbers, but not every sampled value is one (see the check at the top)',
    );
  });

  it('codes with leading zeros (zip 01234, order 000123) stay text, which keeps the zeros', () => {
    expect(guessType(['01234', '10115', '80331'], undefined)).toEqual({
      options: {},
      why: '1/3 sampled values have leading zeros (a code such as 01234): left as text, which keeps them; a number would drop them',
    });
    expect(guessType(['000123', '000124'], undefined).options).toEqual({});
    // A decimal below one is a number, not a code.
    expect(guessType(['0.5', '1.25'], undefined).options).toEqual({ type: 'number' });
  });

  it('ISO date-times without an offset say they are read as UTC; with Z or an offset they need no word', () => {
    expect(guessType(['2024-01-15 10:30:00', '2024-02-01T08:00'], undefined).why).toBe(
      '2/2 sampled values are ISO 8601 date-times without an offset; read as UTC: add `timezone:` if they are local times',
    );
    expect(guessType(['2024-01-15T10:30:00Z', '2024-02-01T08:00:00+02:00'], undefined).why).toBe(
      '2/2 sampled values are ISO 8601 date-times',
    );
    // A value the format does not read (a misfit the check names) is not counted as one without an offset.
    const dates = ['2024-01-15T10:30:00Z', '2024-01-16T10:30:00+01:00', '2024-01-17T10:30:00', '02/04/2026 14:05'];
    expect(guessType([...dates, ...Array(16).fill('2024-03-01T00:00:00Z')], 'datetime').why).toBe(
      '19/20 sampled values are ISO 8601 date-times, 1 of them without an offset; read as UTC: add `timezone:` if they are local times',
    );
    expect(
      guessType([dates[0]!, dates[1]!, dates[3]!, ...Array(17).fill('2024-03-01T00:00:00Z')], 'datetime').why,
    ).toBe('19/20 sampled values are ISO 8601 date-times');
  });

  it('a value only one order reads settles a known date field, though the other order is within its misfits', () => {
    // Three values allow one misfit: MM/dd/yyyy reads two of them, dd/MM/yyyy all three.
    const guess = guessType(['03/04/2026', '04/05/2026', '13/05/2026'], 'date');
    expect(guess.undecided).toBeUndefined();
    expect(guess.options).toEqual({ type: 'date', format: 'dd/MM/yyyy' });
    expect(guess.why).toBe('3/3 sampled values are dates in the format dd/MM/yyyy');
  });

  it('values only each order reads leave a known date field undecided, and the comment counts the values both read', () => {
    const values = [...Array(37).fill('03/04/2026'), '13/05/2026', '14/06/2026', '05/13/2026'];
    const guess = guessType(values, 'date');
    expect(guess.undecided).toMatch(/^ambiguous dates: /);
    expect(guess.why).toBe('37/40 sampled values read as dd/MM/yyyy and as MM/dd/yyyy');
  });

  it('a custom column is never guessed as numbers with a decimal comma: 10,20 may be two ids', () => {
    expect(guessType(['38,40', '42,44', '10,20'], undefined).options).toEqual({});
  });

  it('ambiguous day/month names both readings and is left undecided', () => {
    const guess = guessType(['03/04/2026', '05/06/2026'], 'date');
    expect(guess.undecided).toBe(
      'ambiguous dates: "03/04/2026" is 2026-04-03 as dd/MM/yyyy (day first) or 2026-03-04 as MM/dd/yyyy (month first); keep the right format and uncomment',
    );
  });
});

describe('detectEncoding', () => {
  const polish = 'nazwa,miasto\nŻółta łódź,Łódź\nŚpiwór,Kraków\n';
  it.each([
    ['UTF-8', Buffer.from(polish), 'utf-8', false],
    ['ASCII', Buffer.from('plain,ascii\n'), 'utf-8', false],
    ['Polish in windows-1250', iconv.encode(polish, 'windows-1250'), 'windows-1250', true],
    [
      'Polish in ISO 8859-2 (ś and Ś where windows-1250 has ¶ and ¦)',
      iconv.encode('nazwisko,imię\nWiśniewska,Ścibór\nŻółta łódź,Łódź\n', 'iso-8859-2'),
      'iso-8859-2',
      true,
    ],
    [
      'French and German in windows-1252',
      iconv.encode('name,city\nJosé,Mühlheim\nFrançoise,Besançon\n', 'windows-1252'),
      'windows-1252',
      true,
    ],
    ['UTF-16LE without BOM', iconv.encode(polish, 'utf-16le'), 'utf-16le', false],
    ['UTF-16BE without BOM', iconv.encode(polish, 'utf-16be'), 'utf-16be', false],
    [
      'UTF-16BE with BOM',
      Buffer.concat([Buffer.from([0xfe, 0xff]), iconv.encode(polish, 'utf-16be')]),
      'utf-16be',
      false,
    ],
  ])('%s → %s', (_name, bytes, encoding, guessed) => {
    const found = detectEncoding(bytes);
    expect(found.encoding).toBe(encoding);
    expect(found.guessed).toBe(guessed);
  });
});
