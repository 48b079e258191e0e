/**
 * Decimal values as the service renders them (api.md §2.3: "`value` is a string holding a decimal
 * number"): exact decimal rounding on the digits, never through a float, so `0.125` is `0.13`
 * and `19.995` is `20.00` whatever their binary value.
 */

const DECIMAL = /^([+-]?)(\d*)(?:\.(\d*))?(?:[eE]([+-]?\d+))?$/;

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
  const m = DECIMAL.exec(text);
  if (m === null) return undefined;
  const [, sign = '', intPart = '', fracPart = '', exp = '0'] = m;
  if (intPart === '' && fracPart === '') return undefined;
  // Shift the decimal point by the exponent on the digit string itself.
  let digits = `${intPart}${fracPart}`;
  let point = intPart.length + Number(exp);
  if (Math.abs(Number(exp)) > 400) return undefined;
  if (point < 0) {
    digits = `${'0'.repeat(-point)}${digits}`;
    point = 0;
  }
  if (point > digits.length) digits = `${digits}${'0'.repeat(point - digits.length)}`;
  let whole = digits.slice(0, point) || '0';
  let frac = digits.slice(point);
  const roundUp = frac.length > places && frac.charCodeAt(places) >= 53; // '5'
  frac = frac.slice(0, places).padEnd(places, '0');
  if (roundUp) {
    const bumped = increment(`${whole}${frac}`);
    whole = bumped.slice(0, bumped.length - places) || '0';
    frac = bumped.slice(bumped.length - places);
  }
  whole = whole.replace(/^0+(?=\d)/, '');
  const body = places > 0 ? `${whole}.${frac}` : whole;
  return sign === '-' && /[1-9]/.test(body) ? `-${body}` : body;
}

/** Adds one to a string of digits. */
function increment(digits: string): string {
  const out = digits.split('');
  for (let i = out.length - 1; i >= 0; i--) {
    if (out[i] === '9') {
      out[i] = '0';
    } else {
      out[i] = String(Number(out[i]) + 1);
      return out.join('');
    }
  }
  return `1${out.join('')}`;
}
