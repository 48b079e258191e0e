/**
 * Checks for numeric options, as yargs `coerce` functions: yargs parses `--limit abc` as NaN and
 * `--rate 0` as 0, and either would run with a meaningless value (`at most NaN rows`, an estimate
 * of Infinity). A coerce that throws becomes a usage error (exit 2) naming the option.
 */
export function wholeNumber(option: string, min: number): (value: number) => number {
  return (value) => {
    once(option, value);
    if (!Number.isSafeInteger(value) || value < min)
      throw new Error(`${option} must be a whole number of at least ${min}, got ${shown(value)}`);
    return value;
  };
}

export function positiveNumber(option: string): (value: number) => number {
  return (value) => {
    once(option, value);
    if (!Number.isFinite(value) || value <= 0)
      throw new Error(`${option} must be a number above 0, got ${shown(value)}`);
    return value;
  };
}

// yargs hands over NaN for text it could not read as a number; say "not a number" rather than "NaN".
const shown = (value: number) => (Number.isNaN(value) ? 'something that is not a number' : String(value));

/** yargs coerces before any handler runs: a repeated option (`--limit 1 --limit 2`) comes here as an array. */
function once(option: string, value: unknown): void {
  if (Array.isArray(value))
    throw new Error(
      `${option} was given ${value.length} times (${value.map((v) => JSON.stringify(String(v))).join(', ')}): give it once`,
    );
}
