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
  // Built by string concatenation (V8 joins the pieces once, when the text is hashed): this runs
  // once per row of an incremental scan, where an array of parts and a join cost a third more.
  return write(value);
}

function write(value: unknown): string {
  if (value === null) return 'null';
  switch (typeof value) {
    case 'string':
      return JSON.stringify(value);
    case 'boolean':
      return value ? 'true' : 'false';
    case 'number':
      return Number.isFinite(value) ? JSON.stringify(value) : 'null';
    case 'bigint':
      return value.toString();
    case 'object':
      return writeObject(value);
    default:
      // undefined, functions, symbols: only reached inside an array, where JSON writes null.
      return 'null';
  }
}

function writeObject(value: object): string {
  if (isLosslessNumber(value)) return value.value;
  const json = (value as { toJSON?: unknown }).toJSON;
  if (typeof json === 'function') return write(json.call(value));
  if (Array.isArray(value)) {
    let out = '[';
    for (let i = 0; i < value.length; i++) out += i === 0 ? write(value[i]) : `,${write(value[i])}`;
    return `${out}]`;
  }
  const record = value as Record<string, unknown>;
  let out = '{';
  for (const k of Object.keys(record).sort()) {
    const v = record[k];
    if (v === undefined || typeof v === 'function' || typeof v === 'symbol') continue;
    out += `${out.length === 1 ? '' : ','}${JSON.stringify(k)}:${write(v)}`;
  }
  return `${out}}`;
}
