import { isLosslessNumber } from 'lossless-json';

/**
 * The JSON text of a request body with object keys sorted (by UTF-16 code units, as RFC 8785
 * sorts them) and no whitespace, so that two bodies that the API reads the same way (keys in
 * another order) give the same text, and any changed value gives another.
 *
 * Numbers are written exactly as the request carries them: a JS number in its shortest
 * round-trip form (what `JSON.stringify` sends), an exact number from a `json` cell
 * (lossless-json's LosslessNumber) as its own digits, a bigint in full. Nothing is rounded
 * through a float, so `12345678901234567890` and `12345678901234567891` stay different.
 * Values JSON cannot hold follow `JSON.stringify`, which builds the request itself: `undefined`
 * members are left out, `NaN` and infinities become `null`, `toJSON` is honoured.
 */
export function canonicalJson(value: unknown): string {
  const out: string[] = [];
  write(value, out);
  return out.join('');
}

function write(value: unknown, out: string[]): void {
  if (value === null) {
    out.push('null');
    return;
  }
  switch (typeof value) {
    case 'string':
      out.push(JSON.stringify(value));
      return;
    case 'boolean':
      out.push(value ? 'true' : 'false');
      return;
    case 'number':
      out.push(Number.isFinite(value) ? JSON.stringify(value) : 'null');
      return;
    case 'bigint':
      out.push(value.toString());
      return;
    case 'object':
      break;
    default:
      // undefined, functions, symbols: only reached inside an array, where JSON writes null.
      out.push('null');
      return;
  }
  if (isLosslessNumber(value)) {
    out.push(value.value);
    return;
  }
  const json = (value as { toJSON?: unknown }).toJSON;
  if (typeof json === 'function') {
    write(json.call(value), out);
    return;
  }
  if (Array.isArray(value)) {
    out.push('[');
    value.forEach((item, i) => {
      if (i > 0) out.push(',');
      write(item, out);
    });
    out.push(']');
    return;
  }
  const record = value as Record<string, unknown>;
  const keys = Object.keys(record)
    .filter((k) => record[k] !== undefined && typeof record[k] !== 'function' && typeof record[k] !== 'symbol')
    .sort();
  out.push('{');
  keys.forEach((k, i) => {
    if (i > 0) out.push(',');
    out.push(JSON.stringify(k), ':');
    write(record[k], out);
  });
  out.push('}');
}
