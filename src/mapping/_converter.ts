/**
 * A value that could not be converted, carrying the message a user reads in the report.
 * Converters return it instead of throwing: a bad cell is data, not an exception (exceptions are
 * for a run that cannot go on), and returning is far cheaper than throwing on millions of rows.
 */
export class Invalid {
  constructor(readonly message: string) {}
}

/**
 * How one value type reads its input. Both functions return the converted value, or an
 * `Invalid`; neither throws, whatever the input (a fast-check property in the tests).
 */
export interface Converter {
  /** A cell's text: trimmed already, except for `string`, which keeps its spaces. */
  readonly text: (text: string) => unknown;
  /** A number or boolean from a mapping's `map` (`won: 2`), converted to this type. */
  readonly scalar: (value: number | boolean) => unknown;
}
