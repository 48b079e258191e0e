import { parseValue, type ValueSpec } from '../mapping/parse-value.js';
import { guessDateFormat } from './date-formats.js';
import type { Expect } from './targets.js';

/** The end of an ISO 8601 date-time that says which instant it is: `Z` or an offset such as `+02:00`. */
const ISO_OFFSET = /(?:z|[+-]\d{2}(?::?\d{2})?)$/i;

/** The options written for a field besides its column (`type`, `format`, …). */
export type FieldOptions = Readonly<Record<string, string | number | boolean | Readonly<Record<string, number>>>>;

export interface TypeGuess {
  readonly options: FieldOptions;
  /** Why, for the comment: `13/13 sampled values are integers`. */
  readonly why: string;
  /**
   * Set when the guess cannot be written as a working field: the field is written commented
   * out, with this text saying what the user must decide.
   */
  readonly undecided?: string;
}

const base: Omit<ValueSpec, 'type'> = { items: 'string', separator: ',', decimals: 2, timezone: 'UTC' };
/** Whether the type reads a value. The spec is made once: its converter is built once per spec object (`parseValue`). */
const reads = (s: Partial<ValueSpec>): ((value: string) => boolean) => {
  const spec = { ...base, type: 'string', ...s } as ValueSpec;
  return (value) => parseValue(value, spec).ok;
};
/** Values the type reads. */
const fitting = (values: readonly string[], s: Partial<ValueSpec>) => values.filter(reads(s)).length;
/** `none of the 3 sampled values is one` (a decimal comma, say), or `not every sampled value is one`. */
const someAre = (values: readonly string[], s: Partial<ValueSpec>) =>
  fitting(values, s) === 0 ? `none of the ${values.length} sampled values is one` : 'not every sampled value is one';
/**
 * How many sampled values may fail a type: none for a column of unknown meaning; for a known
 * field (`price`, `expected_close_date`) one in twenty, at least one, so that the file's own
 * mistakes (`1,299.00`, `31.02.2026`) do not hide the type of the other rows. They are the rows
 * the check below names.
 */
let misfits = 0;
const fits = (values: readonly string[], s: Partial<ValueSpec>) => {
  const ok = fitting(values, s);
  return ok === values.length || (ok > values.length / 2 && values.length - ok <= misfits);
};
const count = (n: number, of: number) => `${n}/${of} sampled values`;
/** `13/13 sampled values`, or `12/13 sampled values` when some did not fit. */
const share = (values: readonly string[], s: Partial<ValueSpec>) => count(fitting(values, s), values.length);

const SECONDS = { min: 946_684_800, max: 4_102_444_800 }; // 2000-01-01 .. 2100-01-01
const EMAIL = /^[^@\s]+@[^@\s]+\.[^@\s]+$/;
/** Deal status names as exports write them → the API's numbers (docs/api-contract.md R-DEAL-3: 0 abandoned … 4 archived). */
const STATUS_NAMES: Readonly<Record<string, number>> = {
  abandoned: 0,
  open: 1,
  'in progress': 1,
  won: 2,
  lost: 3,
  archived: 4,
};

/**
 * The type of a column from its sampled non-empty cells, tried with the tool's own converters
 * (src/mapping), so a guess is exactly what `validate` will accept. `expect` is what the target
 * field holds, when the column is mapped to a known field; custom columns have none.
 */
export function guessType(values: readonly string[], expect: Expect | undefined): TypeGuess {
  const n = values.length;
  const all = count(n, n);
  misfits = expect === undefined || n < 3 ? 0 : Math.max(1, Math.floor(n / 20));
  if (n === 0) return { options: {}, why: 'no values in the sample: left as text' };
  switch (expect) {
    case 'text':
      return { options: {}, why: `text (${all})` };
    case 'email': {
      const ok = values.filter((v) => EMAIL.test(v)).length;
      return { options: {}, why: `${count(ok, n)} look like email addresses` };
    }
    case 'json':
      return fits(values, { type: 'json' })
        ? { options: { type: 'json' }, why: `${share(values, { type: 'json' })} are JSON` }
        : { options: {}, why: 'not all values are JSON: left as text' };
    case 'list':
    case 'integer-list':
      return guessList(values, expect === 'integer-list' ? 'integer' : 'string');
    case 'deal-status':
      return guessStatus(values);
    case 'boolean':
      return fits(values, { type: 'boolean' })
        ? { options: { type: 'boolean' }, why: `${all} are true/false, yes/no or 1/0` }
        : { options: {}, why: 'not all values are true/false: left as text' };
    default:
      return guessScalar(values, expect);
  }
}

function guessScalar(values: readonly string[], expect: Expect | undefined): TypeGuess {
  const n = values.length;
  const all = count(n, n);
  const integers = fits(values, { type: 'integer' });
  const millis =
    integers &&
    values.every((v) => /^\d{13}$/.test(v) && Number(v) / 1000 >= SECONDS.min && Number(v) / 1000 < SECONDS.max);
  if (millis && (expect === 'unix' || expect === 'datetime' || expect === undefined)) {
    // `format: x` reads milliseconds; `unix` then sends the seconds the API wants (fractions dropped).
    return {
      options: { type: expect ?? 'unix', format: 'x' },
      why: `${all} are UNIX time in milliseconds (13 digits, years 2000–2100)`,
    };
  }
  const seconds =
    integers && values.every((v) => /^\d{10}$/.test(v) && Number(v) >= SECONDS.min && Number(v) < SECONDS.max);
  if (seconds && (expect === 'unix' || expect === undefined))
    return { options: { type: 'unix' }, why: `${all} are UNIX seconds (10 digits, years 2000–2100)` };
  if (expect === 'integer')
    return integers
      ? { options: { type: 'integer' }, why: `${share(values, { type: 'integer' })} are integers` }
      : {
          options: { type: 'integer' },
          why: `expected integers, but ${someAre(values, { type: 'integer' })} (see the check at the top)`,
        };
  const comma = expect === 'number' || expect === 'decimal' ? decimalComma(values) : undefined;
  if (comma !== undefined) return comma;
  if (expect === 'number' || expect === 'decimal') {
    if (fits(values, { type: 'number' }))
      return { options: { type: 'number' }, why: `${share(values, { type: 'number' })} are numbers` };
    return {
      options: { type: 'number' },
      why: `expected numbers, but ${someAre(values, { type: 'number' })} (see the check at the top)`,
    };
  }
  if (expect === 'date' || expect === 'datetime' || expect === 'unix' || expect === undefined) {
    const date = guessDateFormat(values, misfits);
    if (date !== undefined) {
      const type = expect ?? (date.withTime ? 'datetime' : 'date');
      if (date.kind === 'iso') {
        // A date-time without Z or an offset names no instant: it is read as UTC unless the mapping
        // says where. Counted among the values read as ISO 8601 only (a misfit is not one of them).
        const spec = { type: date.withTime ? 'datetime' : 'date' } as const;
        const read = fitting(values, spec);
        const readsIso = reads(spec);
        const local =
          date.withTime && type !== 'date' ? values.filter((v) => readsIso(v) && !ISO_OFFSET.test(v.trim())).length : 0;
        const offsets =
          local === 0
            ? ''
            : `${local === read ? ' without an offset' : `, ${local} of them without an offset`}; read as UTC: add \`timezone:\` if they are local times`;
        return {
          options: { type },
          why: `${count(read, values.length)} are ISO 8601 ${date.withTime ? 'date-times' : 'dates'}${offsets}`,
        };
      }
      if (date.kind === 'format') {
        const zone = date.withTime && type !== 'date' ? '; read as UTC: add `timezone:` if they are local times' : '';
        const read = share(values, { type: date.withTime ? 'datetime' : 'date', format: date.format });
        return { options: { type, format: date.format }, why: `${read} are dates in the format ${date.format}${zone}` };
      }
      return {
        options: { type, format: date.formats[0] },
        why: `${count(values.filter((v) => [0, 1].every((i) => reads({ type: date.withTime ? 'datetime' : 'date', format: date.formats[i] })(v))).length, values.length)} read as ${date.formats[0]} and as ${date.formats[1]}`,
        undecided: `ambiguous dates: "${date.example}" is ${date.readings[0]} as ${date.formats[0]} (day first) or ${date.readings[1]} as ${date.formats[1]} (month first); keep the right format and uncomment`,
      };
    }
    if (expect !== undefined)
      return {
        options: { type: expect },
        why: `expected ${expect === 'unix' ? 'a time' : `a ${expect}`}, but no date format reads every sampled value (see the check at the top)`,
      };
  }
  // Codes written with leading zeros (a zip `01234`, an order `000123`): a number would drop them.
  const padded = values.filter((v) => /^[+-]?0\d/.test(v.trim())).length;
  if (padded > 0 && (integers || fits(values, { type: 'number' })))
    return {
      options: {},
      why: `${count(padded, n)} have leading zeros (a code such as 01234): left as text, which keeps them; a number would drop them`,
    };
  if (integers) return { options: { type: 'integer' }, why: `${all} are integers` };
  if (fits(values, { type: 'number' }))
    return { options: { type: 'number' }, why: `${all} are numbers with a decimal point` };
  // A column of JSON objects (`{"session":"s-7f3a"}`): sent as the object it writes, not as its text.
  if (expect === undefined && fits(values, { type: 'json' }))
    return { options: { type: 'json' }, why: `${all} are JSON objects` };
  if (values.every((v) => /^(true|false|yes|no)$/i.test(v)))
    return { options: { type: 'boolean' }, why: `${all} are true/false or yes/no` };
  const list = listSeparator(values);
  if (list !== undefined) return guessList(values, 'string');
  return { options: {}, why: `text (${all})` };
}

/**
 * A known number field (a price) written with a decimal comma (`249,00`, `1.299,50`): guessed only
 * when a comma is followed by other than three digits somewhere, since `1,299` alone may be a
 * thousands separator. Never for a column of unknown meaning: `10,20` there may be two ids.
 */
function decimalComma(values: readonly string[]): TypeGuess | undefined {
  if (!values.some((v) => /,(?:\d{1,2}|\d{4,})$/.test(v.trim()))) return undefined;
  const spec = { type: 'number', decimalComma: true } as const;
  if (!fits(values, spec)) return undefined;
  return {
    options: { type: 'number', decimal_comma: true },
    why: `${share(values, spec)} are numbers with a decimal comma`,
  };
}

/** `;` or `|` inside most cells: a list. A comma is too common in text to be guessed alone. */
function listSeparator(values: readonly string[]): string | undefined {
  for (const sep of [';', '|']) {
    if (values.filter((v) => v.includes(sep)).length * 2 >= values.length) return sep;
  }
  return undefined;
}

function guessList(values: readonly string[], items: 'string' | 'integer'): TypeGuess {
  const counts = [';', '|', ',', ' '].map((sep) => ({ sep, cells: values.filter((v) => v.includes(sep)).length }));
  const best = counts.find((c) => c.cells > 0) ?? { sep: ',', cells: 0 };
  const options: Record<string, string> = { type: 'list', separator: best.sep };
  if (items === 'integer' && fits(values, { type: 'list', items: 'integer', separator: best.sep }))
    options['items'] = 'integer';
  const why =
    best.cells > 0
      ? `a list: ${count(best.cells, values.length)} hold ${JSON.stringify(best.sep)}`
      : 'a list; no sampled value holds a separator, `,` assumed';
  return { options, why };
}

function guessStatus(values: readonly string[]): TypeGuess {
  const n = values.length;
  if (values.every((v) => /^[0-4]$/.test(v)))
    return { options: { type: 'integer' }, why: `${count(n, n)} are the API's status numbers 0–4` };
  const odd = values.filter((v) => !(v.toLowerCase() in STATUS_NAMES));
  const unknown = [...new Set(odd.map((v) => v.toLowerCase()))];
  if (odd.length === 0 || (odd.length < n / 2 && odd.length <= misfits)) {
    return {
      options: { type: 'integer', map: STATUS_NAMES },
      why: `${count(n - odd.length, n)} are status names, mapped to the API's numbers`,
    };
  }
  return {
    options: { type: 'integer' },
    why: `values such as ${unknown
      .slice(0, 3)
      .map((v) => JSON.stringify(v))
      .join(', ')} are not status numbers`,
    undecided: 'add a `map` from these values to 0 abandoned, 1 in progress, 2 won, 3 lost, 4 archived, and uncomment',
  };
}
