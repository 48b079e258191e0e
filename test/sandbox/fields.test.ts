import { describe, expect, it } from 'vitest';
import {
  notAValidChoice,
  pythonType,
  readBoolean,
  readDate,
  readDateTime,
  readDecimal,
  readDict,
  readEmail,
  readInteger,
  readList,
  readNumber,
  readPk,
  readString,
} from '../../src/sandbox/fields.js';

const bad = (error: string) => ({ ok: false, error });
const good = (value: unknown) => ({ ok: true, value });

describe('field readers: the framework type messages the sandbox answers with', () => {
  it.each([
    ['readInteger 12', readInteger(12), good(12)],
    ['readInteger "12"', readInteger('12'), good(12)],
    ['readInteger 12.0', readInteger(12.0), good(12)],
    ['readInteger "12.0"', readInteger('12.0'), good(12)],
    ['readInteger 1.5', readInteger(1.5), bad('A valid integer is required.')],
    ['readInteger "abc"', readInteger('abc'), bad('A valid integer is required.')],
    ['readInteger true', readInteger(true), bad('A valid integer is required.')],
    ['readInteger "99999999999999999999"', readInteger('99999999999999999999'), bad('A valid integer is required.')],
    ['readPk "7"', readPk('7'), good(7)],
    ['readPk "one"', readPk('one'), bad('Incorrect type. Expected pk value, received str.')],
    ['readPk [1]', readPk([1]), bad('Incorrect type. Expected pk value, received list.')],
    ['readString "x"', readString('x'), good('x')],
    ['readString 5', readString(5), good('5')],
    ['readString {}', readString({}), bad('Not a valid string.')],
    ['readString true', readString(true), bad('Not a valid string.')],
    ['readString blank', readString('  ', { allowBlank: false }), bad('This field may not be blank.')],
    [
      'readString 41 chars',
      readString('a'.repeat(41), { maxLength: 40 }),
      bad('Ensure this field has no more than 40 characters.'),
    ],
    ['readString 40 accented chars', readString('ą'.repeat(40), { maxLength: 40 }), good('ą'.repeat(40))],
    ['readDecimal 826.9', readDecimal(826.9), good('826.90')],
    ['readDecimal "1 249,50"', readDecimal('1 249,50'), bad('A valid number is required.')],
    ['readNumber "249.00"', readNumber('249.00'), good(249)],
    ['readNumber "1,299.00"', readNumber('1,299.00'), bad('A valid number is required.')],
    ['readBoolean "yes"', readBoolean('yes'), good(true)],
    ['readBoolean 0', readBoolean(0), good(false)],
    ['readBoolean "maybe"', readBoolean('maybe'), bad('Must be a valid boolean.')],
    ['readDate "2026-05-15"', readDate('2026-05-15'), good('2026-05-15')],
    [
      'readDate "15.05.2026"',
      readDate('15.05.2026'),
      bad('Date has wrong format. Use one of these formats instead: YYYY-MM-DD.'),
    ],
    ['readDateTime "2026-03-02T08:00:00Z"', readDateTime('2026-03-02T08:00:00Z'), good('2026-03-02T08:00:00.000Z')],
    [
      'readDateTime 1767600000',
      readDateTime(1767600000),
      bad(
        'Datetime has wrong format. Use one of these formats instead: YYYY-MM-DDThh:mm[:ss[.uuuuuu]][+HH:MM|-HH:MM|Z].',
      ),
    ],
    ['readEmail ok', readEmail('anna@example.pl'), good('anna@example.pl')],
    ['readEmail bad', readEmail('anna.example.pl'), bad('Enter a valid email address.')],
    ['readList "a"', readList('a'), bad('Expected a list of items but got type "str".')],
    ['readDict []', readDict([]), bad('Expected a dictionary of items but got type "list".')],
    ['readDict 5', readDict(5), bad('Expected a dictionary of items but got type "int".')],
  ])('%s', (_name, got, want) => {
    expect(got).toEqual(want);
  });

  it.each([
    [null, 'NoneType'],
    ['x', 'str'],
    [1, 'int'],
    [1.5, 'float'],
    [true, 'bool'],
    [[], 'list'],
    [{}, 'dict'],
  ])('pythonType(%j) = %s', (value, name) => {
    expect(pythonType(value)).toBe(name);
  });

  it.each([
    ['pending', '"pending" is not a valid choice.'],
    [7, '"7" is not a valid choice.'],
  ])('notAValidChoice(%j) (R-DEAL-3)', (value, text) => {
    expect(notAValidChoice(value)).toBe(text);
  });
});
