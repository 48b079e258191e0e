import { Decimal } from 'decimal.js';

/**
 * Decimal values as the service renders them (`docs/api-contract.md` R-DEAL-9: a string holding a
 * decimal number, 2 decimals in the sandbox): exact decimal rounding by decimal.js on the digits,
 * never through a float, so `0.125` is `0.13` and `19.995` is `20.00` whatever their binary value.
 */

/** What the sandbox takes as a number written as text: digits, one optional point, an exponent. */
const DECIMAL = /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/;

/** Exponents beyond this are no amount of money: refused rather than expanded to 400 digits. */
const MAX_EXPONENT = 400;

/**
 * `value` (a JSON number or a numeric string) as a decimal string with `places` decimals,
 * rounded half away from zero; undefined when it is not a finite number.
 */
export function toDecimalString(value: unknown, places = 2): string | undefined {
  let text: string;
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) return undefined;
    text = String(value);
  } else if (typeof value === 'string') {
    text = value.trim();
  } else {
    return undefined;
  }
  const match = DECIMAL.exec(text);
  if (match === null || Math.abs(Number(match[2]?.slice(1) ?? 0)) > MAX_EXPONENT) return undefined;
  const rounded = new Decimal(text).toDecimalPlaces(places, Decimal.ROUND_HALF_UP);
  // `-0.001` rounds to zero: shown without a sign, as the service shows zero.
  return (rounded.isZero() ? rounded.abs() : rounded).toFixed(places);
}
