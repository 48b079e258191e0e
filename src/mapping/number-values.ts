import { quote, show } from '../text/show.js';
import { Invalid, type Converter } from './_converter.js';

const INTEGER = /^[+-]?\d+$/;
const NUMBER = /^[+-]?(?:\d+(?:\.\d+)?|\.\d+)(?:[eE][+-]?\d+)?$/;
const DECIMAL = /^([+-]?)(\d*)(?:\.(\d+))?$/;

// Spreadsheet habits that make a number unreadable: `1,299.00`, `1 249`, `1'000` (grouped
// thousands), `12,5` (decimal comma), `1.249,50` / `1 249,50` (both). Named in the message so the
// user knows what to change instead of just "not a number".
const GROUPED = /^[+-]?\d{1,3}([,' \u00a0\u202f])\d{3}(?:\1\d{3})*(?:\.\d+)?$/;
const GROUPED_DECIMAL_COMMA = /^[+-]?\d{1,3}([.' \u00a0\u202f])\d{3}(?:\1\d{3})*,\d+$/;
const DECIMAL_COMMA = /^[+-]?\d*,\d+$/;

function hint(text: string, commaOption = true): string {
  // `decimal_comma` reads numbers and decimals; an integer has no decimals to write with a comma.
  const or = commaOption ? ' (or set decimal_comma: true on the field)' : '';
  if (GROUPED.test(text)) return ' without thousands separators';
  if (GROUPED_DECIMAL_COMMA.test(text)) return ` with a decimal point and no thousands separators${or}`;
  if (DECIMAL_COMMA.test(text)) return ` with a decimal point${or}`;
  return '';
}

const SAFE = `between ${Number.MIN_SAFE_INTEGER} and ${Number.MAX_SAFE_INTEGER}`;

/**
 * `integer`: plain digits with an optional sign. `1.5` and `1e3` are rejected: scientific notation
 * in an integer column is what a spreadsheet writes after rounding a long identifier
 * (`1.23457E+11`), so accepting it would send a wrong id. Beyond ±2^53 a JSON number is no
 * longer exact, so that is rejected too.
 */
export const integerValue: Converter = {
  text(text) {
    if (INTEGER.test(text)) {
      const n = Number(text);
      if (!Number.isSafeInteger(n)) return new Invalid(`expected an integer ${SAFE}, got ${quote(text)}`);
      return n + 0; // `-0` → `0`
    }
    if (NUMBER.test(text) && /[eE]/.test(text)) {
      return new Invalid(`expected an integer in plain digits, got ${quote(text)} (a spreadsheet may have rounded it)`);
    }
    return new Invalid(`expected an integer${hint(text, false)}, got ${quote(text)}`);
  },
  scalar(value) {
    if (typeof value === 'number' && Number.isSafeInteger(value)) return value + 0;
    return new Invalid(`expected an integer, got ${show(value)}`);
  },
};

/** `1.299,50`, `1 249,5`, `1'000`, `12,5`, `-3`: digits, thousands grouped by `.`, a space or `'`, a decimal comma. */
// A group before a separator starts with 1-9: nobody groups thousands after a lone 0, so `0.500`
// is a point decimal (refused), not 500.
const COMMA_NUMBER = /^([+-]?)([1-9]\d{0,2}(?:([.' \u00a0\u202f])\d{3}(?:\3\d{3})*)|\d+)(?:,(\d+))?$/;

/**
 * A converter for cells written with a decimal comma (`decimal_comma: true`): the cell is turned
 * into the point notation `number` and `decimal` read (`1.299,50` → `1299.50`), and a cell that is
 * not so written (`12.5`: a point where a comma is expected) is refused, never guessed at.
 */
export function withDecimalComma(converter: Converter): Converter {
  return {
    text(text) {
      const m = COMMA_NUMBER.exec(text);
      if (m === null)
        return new Invalid(`expected a number with a decimal comma (such as 1.299,50 or 12,5), got ${quote(text)}`);
      const whole = m[2]!.replace(/[.' \u00a0\u202f]/g, '');
      const written = `${m[1]}${whole}${m[4] === undefined ? '' : `.${m[4]}`}`;
      const value = converter.text(written);
      // A refusal quotes the cell as the file has it, not as it was rewritten.
      return value instanceof Invalid ? new Invalid(value.message.replace(quote(written), quote(text))) : value;
    },
    scalar: (value) => converter.scalar(value),
  };
}

/** The significant digits of a number written in decimal: `-0012.300e5` → `123`. */
function significant(text: string): string {
  const mantissa = text
    .replace(/^[+-]/, '')
    .replace(/[eE].*$/, '')
    .replace('.', '');
  return mantissa.replace(/^0+/, '').replace(/0+$/, '');
}

/**
 * True when the text (a number in JSON's grammar, as both callers check first), read as a double,
 * keeps every digit it was written with:
 * `0.1` and `1.5e300` do, `9007199254740993` (becomes …992), `12345678901234567890` and `1e-400`
 * (becomes 0) do not. The shortest form of the double that the text parses to is compared with
 * the text's own digits.
 */
export function isExactNumber(text: string): boolean {
  // Fast path for the common cell: at most 15 characters without an exponent hold at most 15
  // significant digits, which every double keeps (and their magnitude is far from the limits).
  if (text.length <= 15 && !/[eE]/.test(text)) return Number.isFinite(Number(text));
  const n = Number(text);
  return Number.isFinite(n) && significant(text) === significant(String(Math.abs(n)).replace(/e.*$/, ''));
}

/** What to do about a number a double cannot hold: the two types that keep every digit. */
export const EXACT_TYPES_HINT = `a JSON number keeps about 15 significant digits: use type decimal to send it as text with every digit, or integer for whole numbers ${SAFE}`;

/** `number`: a JSON number: `-1.25`, `1e3`, `.5`. No hex, no `Infinity`, no thousands separators, no digit lost. */
export const numberValue: Converter = {
  text(text) {
    if (!NUMBER.test(text)) return new Invalid(`expected a number${hint(text)}, got ${quote(text)}`);
    const n = Number(text);
    if (!Number.isFinite(n)) return new Invalid(`expected a number, got ${quote(text)} (too large)`);
    if (!isExactNumber(text))
      return new Invalid(
        `expected a number that can be sent exactly, got ${quote(text)}, which would be sent as ${n + 0} (${EXACT_TYPES_HINT})`,
      );
    return n + 0;
  },
  scalar(value) {
    if (typeof value === 'number' && Number.isFinite(value)) return value + 0;
    return new Invalid(`expected a number, got ${show(value)}`);
  },
};

/**
 * `decimal`: a string with exactly `decimals` digits after the point (`12.5` → `"12.50"`), as the
 * API's order product `value` wants (a decimal string). The digits are kept as text, never passed
 * through a float. A value with more (non-zero) decimals than allowed is rejected rather than
 * rounded: silently rounding money is worse than asking the user to fix the file.
 * `12.340` with 2 decimals is fine (`"12.34"`): dropping trailing zeros changes nothing.
 */
export function decimalValue(decimals: number): Converter {
  const zeros = '0'.repeat(decimals);
  const tooPrecise =
    decimals === 0 ? 'expected a whole number' : `expected at most ${decimals} decimal${decimals === 1 ? '' : 's'}`;
  const text = (cell: string): unknown => {
    const m = DECIMAL.exec(cell);
    const whole = m?.[2] ?? '';
    let fraction = m?.[3] ?? '';
    if (m === null || (whole === '' && fraction === '')) {
      return new Invalid(`expected a decimal number${hint(cell)}, got ${quote(cell)}`);
    }
    if (fraction.length > decimals) {
      if (/[^0]/.test(fraction.slice(decimals))) return new Invalid(`${tooPrecise}, got ${quote(cell)}`);
      fraction = fraction.slice(0, decimals);
    }
    const digits = whole.replace(/^0+(?=\d)/, '') || '0';
    const negative = m[1] === '-' && /[1-9]/.test(digits + fraction); // no "-0.00"
    const padded = fraction + zeros.slice(fraction.length);
    return `${negative ? '-' : ''}${digits}${decimals > 0 ? `.${padded}` : ''}`;
  };
  return {
    text,
    scalar(value) {
      // String(0.5) is "0.5"; a float that prints as 1e-7 or 1e+21 is rejected by the pattern.
      if (typeof value === 'number' && Number.isFinite(value)) return text(String(value));
      return new Invalid(`expected a decimal number, got ${show(value)}`);
    },
  };
}
