import { quote } from '../text/show.js';
import { Invalid } from './_converter.js';

/**
 * A date and time as written in a cell, before any time zone is applied. Its fields are encoded
 * as if they were UTC (`Date.UTC`), so reading the date back never involves a zone: a date-only
 * value cannot shift by a day, whatever the machine's time zone.
 */
export interface WrittenTime {
  /** The written fields as a UTC timestamp (ms). */
  readonly wall: number;
  /** The offset from UTC written in the text (`Z`, `+02:00`), in ms; `undefined` when there is none. */
  readonly offset: number | undefined;
}

/** Reads a cell into a `WrittenTime`, or an `Invalid` naming the bad value; never throws. */
export type TimeReader = (text: string) => WrittenTime | Invalid;

/** `expected …, got "x" (reason)`. */
export function badTime(expected: string, text: string, reason?: string): Invalid {
  return new Invalid(`${expected}, got ${quote(text)}${reason === undefined ? '' : ` (${reason})`}`);
}
