import { codes } from 'currency-codes';
import type { FieldError } from '../mapping/field-error.js';
import { show } from '../text/show.js';
import { didYouMean } from '../text/suggest.js';
import { isUnixMilliseconds, isUnixSeconds, wallTime } from '../time/calendar.js';
import { type IsoFields, readIsoFields } from '../time/iso-8601.js';
import type { Payload } from './resource-def.js';

/** A rule for one value: the message when the value breaks it, else `undefined`. */
export type Rule = (value: unknown) => string | undefined;

/** `undefined` (left out by the mapping) and `null` (`empty: null`) both mean "no value" for a required field. */
export const isGiven = (value: unknown): boolean => value !== undefined && value !== null;

export const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

export const integer: Rule = (v) => (Number.isSafeInteger(v) ? undefined : `expected an integer, got ${show(v)}`);

export const string: Rule = (v) => (typeof v === 'string' ? undefined : `expected a string, got ${show(v)}`);

/** Text, or a number the API takes as its text (a phone number mapped as an integer); not true, false, a list or an object. */
export const text: Rule = (v) =>
  typeof v === 'string' || (typeof v === 'number' && Number.isFinite(v)) ? undefined : `expected text, got ${show(v)}`;

/** A string with something in it: a custom id or a name of spaces is as good as none. */
export const nonEmptyString: Rule = (v) => {
  if (typeof v !== 'string') return `expected a string, got ${show(v)}`;
  return v.trim() === '' ? `must not be empty, got ${show(v)}` : undefined;
};

export const number: Rule = (v) =>
  typeof v === 'number' && Number.isFinite(v) ? undefined : `expected a number, got ${show(v)}`;

export const boolean: Rule = (v) => (typeof v === 'boolean' ? undefined : `expected true or false, got ${show(v)}`);

export const jsonObject: Rule = (v) => (isPlainObject(v) ? undefined : `expected a JSON object, got ${show(v)}`);

/** A string at most `max` characters long (code points, as the service counts them: docs/api-contract.md R-USER-2). */
export function stringOfAtMost(max: number): Rule {
  return (v) => {
    if (typeof v !== 'string') return `expected a string, got ${show(v)}`;
    let length = 0;
    for (const _ of v) length++;
    return length > max ? `at most ${max} characters, got ${length}: ${show(v)}` : undefined;
  };
}

/** The fields of `v` when it is text in the tool's ISO 8601 grammar (src/time/iso-8601.ts), else `undefined`. */
const isoFields = (v: unknown): IsoFields | undefined => (typeof v === 'string' ? readIsoFields(v) : undefined);

/** Whether the fields name a time that exists: a real day, hour, minute and second, an offset within ±18:00. */
const exists = (f: IsoFields): boolean =>
  typeof wallTime(f.year, f.month, f.day, f.hour, f.minute, f.second, f.ms) === 'number' && !Number.isNaN(f.offset);

/** `YYYY-MM-DD` as the API's date fields take it (R-DEAL-2 `expected_close_date`), a day that exists. */
export const date: Rule = (v) => {
  const f = isoFields(v);
  if (f === undefined || f.hasTime) return `expected a date as YYYY-MM-DD, got ${show(v)}`;
  return exists(f) ? undefined : `expected a date as YYYY-MM-DD, got ${show(v)} (no such day)`;
};

// An offset is required: without one the service would read the time in its own zone, which the
// user cannot see (the mapping engine always writes `…Z`).
const EXPECTED_DATE_TIME = 'expected an ISO 8601 date-time with an offset such as 2026-03-29T14:30:00Z';
/** ISO 8601 date-time with `Z` or an offset (R-PUSH-4 `eta`, R-DEAL-2 `won_at`, `lost_at`). */
export const datetime: Rule = (v) => {
  const f = isoFields(v);
  if (f === undefined || !f.hasTime || f.offset === undefined) return `${EXPECTED_DATE_TIME}, got ${show(v)}`;
  return exists(f) ? undefined : `${EXPECTED_DATE_TIME}, got ${show(v)} (no such time)`;
};

/**
 * UNIX time in whole seconds (R-EVENT-1, R-PEVT-3 `timestamp`), in the range the mapping engine's
 * `unix` type writes (years 0000–9999): beyond it a value in milliseconds is far more likely than
 * an event in the year 50 000.
 */
export const unixSeconds: Rule = (v) => {
  if (isUnixSeconds(v)) return undefined;
  return `expected UNIX time in whole seconds, got ${show(v)}${isUnixMilliseconds(v) ? ' (milliseconds?)' : ''}`;
};

const CURRENCIES: ReadonlySet<string> = new Set(codes());

/**
 * The code a mistyped currency most likely meant: its upper case (`eur`), or the only code left
 * after dropping one letter of a four-letter word (`EURO`). A three-letter typo has several
 * neighbours (`ABC`: `XBC`, `AUC`…), so none is suggested.
 */
function nearestCurrency(text: string): string | undefined {
  const upper = text.trim().toUpperCase();
  if (CURRENCIES.has(upper)) return upper;
  if (upper.length !== 4) return undefined;
  const near = new Set(
    [0, 1, 2, 3].map((i) => upper.slice(0, i) + upper.slice(i + 1)).filter((c) => CURRENCIES.has(c)),
  );
  return near.size === 1 ? [...near][0] : undefined;
}

/** An ISO 4217 code as the standard writes it, upper case (R-DEAL-2 `currency`). */
export const currency: Rule = (v) => {
  if (typeof v === 'string' && CURRENCIES.has(v)) return undefined;
  if (typeof v !== 'string') return `expected an ISO 4217 currency code, got ${show(v)}`;
  return `${show(v)} is not an ISO 4217 currency code${didYouMean(nearestCurrency(v))}`;
};

/**
 * A list whose items all pass `item`. A bad item is named by its position counting from 1, as the
 * mapping engine names the items of a list cell (`item 3: expected an integer, got "x"`).
 */
export function listOf(item: Rule): Rule {
  return (v) => {
    if (!Array.isArray(v)) return `expected a list, got ${show(v)}`;
    for (let i = 0; i < v.length; i++) {
      const message = item(v[i]);
      if (message !== undefined) return `item ${i + 1}: ${message}`;
    }
    return undefined;
  };
}

/** Collects every problem of one row (a row gets all its errors at once, so one fix round is enough). */
export class Issues {
  readonly list: FieldError[] = [];

  add(field: string, message: string, alternatives?: readonly string[]): void {
    this.list.push(alternatives === undefined ? { field, message } : { field, message, alternatives });
  }

  /** The field must be given (not left out, not null) and pass `rule`. */
  required(payload: Payload, key: string, rule: Rule, prefix = ''): void {
    const value = Object.hasOwn(payload, key) ? payload[key] : undefined;
    if (!isGiven(value)) this.add(prefix + key, 'is required');
    else this.check(prefix + key, value, rule);
  }

  /**
   * When given, the field must pass `rule`. `null` is accepted: it is what a mapping's
   * `empty: null` asks for (clear the field), and the service decides what it means.
   */
  optional(payload: Payload, key: string, rule: Rule, prefix = ''): void {
    const value = Object.hasOwn(payload, key) ? payload[key] : undefined;
    if (isGiven(value)) this.check(prefix + key, value, rule);
  }

  /** Keys the endpoint does not know: it would ignore them, so a typo would silently send nothing. */
  unknown(payload: Payload, known: ReadonlySet<string>, message: string, prefix = ''): void {
    for (const key of Object.keys(payload)) {
      if (!known.has(key)) this.add(prefix + key, message);
    }
  }

  private check(field: string, value: unknown, rule: Rule): void {
    const message = rule(value);
    if (message !== undefined) this.add(field, message);
  }
}
