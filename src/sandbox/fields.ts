/**
 * Field readers with the web framework's messages (the service is built on it: docs/api-contract.md R-ERR-6),
 * for type errors that the API reference leaves open. Each reader returns the value as the service stores
 * it, or the message for that field. Like the framework, integers and numbers may come as JSON
 * numbers or as numeric strings (`"12"`), and a whole float (`12.0`) is an integer.
 */
import { parseDate, parseDateTime } from './datetime.js';
import { toDecimalString } from './decimal.js';

export type Read<T> = { readonly ok: true; readonly value: T } | { readonly ok: false; readonly error: string };

export const MESSAGES = {
  required: 'This field is required.',
  null: 'This field may not be null.',
  blank: 'This field may not be blank.',
  integer: 'A valid integer is required.',
  number: 'A valid number is required.',
  string: 'Not a valid string.',
  boolean: 'Must be a valid boolean.',
  email: 'Enter a valid email address.',
  date: 'Date has wrong format. Use one of these formats instead: YYYY-MM-DD.',
  datetime:
    'Datetime has wrong format. Use one of these formats instead: YYYY-MM-DDThh:mm[:ss[.uuuuuu]][+HH:MM|-HH:MM|Z].',
} as const;

const ok = <T>(value: T): Read<T> => ({ ok: true, value });
const fail = (error: string): Read<never> => ({ ok: false, error });

/**
 * The keys of a request body, without `__proto__`: JSON.parse makes it an own key, and assigning
 * it to a record (a custom attribute, an error entry) would change that object's prototype.
 */
export function bodyEntries(body: Record<string, unknown>): [string, unknown][] {
  return Object.entries(body).filter(([key]) => key !== '__proto__');
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** The framework names JSON types by their Python names in its messages. */
export function pythonType(value: unknown): string {
  if (value === null) return 'NoneType';
  if (Array.isArray(value)) return 'list';
  switch (typeof value) {
    case 'string':
      return 'str';
    case 'boolean':
      return 'bool';
    case 'number':
      return Number.isInteger(value) ? 'int' : 'float';
    default:
      return 'dict';
  }
}

/** `"<v>" is not a valid choice.` (R-DEAL-3: "contains the phrase 'is not a valid choice'"). */
export function notAValidChoice(value: unknown): string {
  return `"${typeof value === 'string' ? value : JSON.stringify(value)}" is not a valid choice.`;
}

/** `Ensure this field has no more than <n> characters.` */
export function tooLong(max: number): string {
  return `Ensure this field has no more than ${max} characters.`;
}

/** `Ensure this value is greater than or equal to <n>.` */
export function tooSmall(min: number): string {
  return `Ensure this value is greater than or equal to ${min}.`;
}

/** `Expected a list of items but got type "<t>".` */
export function notAList(value: unknown): string {
  return `Expected a list of items but got type "${pythonType(value)}".`;
}

/** `Expected a dictionary of items but got type "<t>".` */
export function notADict(value: unknown): string {
  return `Expected a dictionary of items but got type "${pythonType(value)}".`;
}

/** A request body (or list item) that is not a JSON object. */
export function notAnObject(value: unknown): string {
  return `Invalid data. Expected a dictionary, but got ${pythonType(value)}.`;
}

/** `Invalid pk "<id>" - object does not exist.` (R-DEAL-7). */
export function pkMissing(value: unknown): string {
  return `Invalid pk "${String(value)}" - object does not exist.`;
}

/** A reference that is not an id at all. */
export function pkWrongType(value: unknown): string {
  return `Incorrect type. Expected pk value, received ${pythonType(value)}.`;
}

const INTEGER_TEXT = /^\s*[+-]?\d+(?:\.0*)?\s*$/;

export function readInteger(value: unknown): Read<number> {
  if (typeof value === 'number') return Number.isInteger(value) ? ok(value) : fail(MESSAGES.integer);
  if (typeof value === 'string' && INTEGER_TEXT.test(value)) {
    const n = Number.parseInt(value, 10);
    return Number.isSafeInteger(n) ? ok(n) : fail(MESSAGES.integer);
  }
  return fail(MESSAGES.integer);
}

/** A related record's id: an integer, or the integer as a string. */
export function readPk(value: unknown): Read<number> {
  const n = readInteger(value);
  return n.ok ? n : fail(pkWrongType(value));
}

/** A string field; numbers are taken as their text like the framework does. */
export function readString(
  value: unknown,
  options: { readonly allowBlank?: boolean; readonly maxLength?: number } = {},
): Read<string> {
  let text: string;
  if (typeof value === 'string') text = value;
  else if (typeof value === 'number' && Number.isFinite(value)) text = String(value);
  else return fail(MESSAGES.string);
  if (options.allowBlank === false && text.trim() === '') return fail(MESSAGES.blank);
  if (options.maxLength !== undefined && [...text].length > options.maxLength) return fail(tooLong(options.maxLength));
  return ok(text);
}

/** A decimal, stored as a string with 2 decimals (R-DEAL-9). */
export function readDecimal(value: unknown): Read<string> {
  const text = typeof value === 'string' || typeof value === 'number' ? toDecimalString(value) : undefined;
  return text === undefined ? fail(MESSAGES.number) : ok(text);
}

/** A number kept as a JSON number (a product's price). */
export function readNumber(value: unknown): Read<number> {
  if (typeof value === 'number' && Number.isFinite(value)) return ok(value);
  if (typeof value === 'string' && value.trim() !== '' && Number.isFinite(Number(value))) return ok(Number(value));
  return fail(MESSAGES.number);
}

const TRUE_VALUES = new Set<unknown>([true, 1, 'true', 'True', 'TRUE', '1', 'yes', 'Yes', 'on', 'y', 't']);
const FALSE_VALUES = new Set<unknown>([false, 0, 'false', 'False', 'FALSE', '0', 'no', 'No', 'off', 'n', 'f']);

export function readBoolean(value: unknown): Read<boolean> {
  if (TRUE_VALUES.has(value)) return ok(true);
  if (FALSE_VALUES.has(value)) return ok(false);
  return fail(MESSAGES.boolean);
}

export function readDate(value: unknown): Read<string> {
  const date = typeof value === 'string' ? parseDate(value) : undefined;
  return date === undefined ? fail(MESSAGES.date) : ok(date);
}

export function readDateTime(value: unknown): Read<string> {
  const time = typeof value === 'string' ? parseDateTime(value) : undefined;
  return time === undefined ? fail(MESSAGES.datetime) : ok(time);
}

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

export function readEmail(value: unknown): Read<string> {
  const text = readString(value);
  if (!text.ok) return text;
  return EMAIL.test(text.value) ? text : fail(MESSAGES.email);
}

export function readList(value: unknown): Read<readonly unknown[]> {
  return Array.isArray(value) ? ok(value) : fail(notAList(value));
}

export function readDict(value: unknown): Read<Record<string, unknown>> {
  return isRecord(value) ? ok(value) : fail(notADict(value));
}
