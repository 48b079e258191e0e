import { SourceError } from '../errors.js';

/**
 * A header every row can be read against: csv-parse would silently keep the last of two columns
 * with one name, and a nameless column (often a trailing delimiter) cannot be mapped.
 * `where` is `file line N`.
 */
export function validateHeader(header: readonly string[], where: string): void {
  const empty: number[] = [];
  const seen = new Map<string, number[]>();
  header.forEach((name, i) => {
    if (name.trim() === '') empty.push(i + 1);
    else seen.set(name, [...(seen.get(name) ?? []), i + 1]);
  });
  const duplicated = [...seen].filter(([, at]) => at.length > 1);
  const problems: string[] = [];
  if (duplicated.length > 0) {
    const list = duplicated.map(([name, at]) => `${JSON.stringify(name)} (columns ${at.join(', ')})`).join(', ');
    problems.push(`duplicate column names in the header: ${list}`);
  }
  if (empty.length > 0) {
    problems.push(
      `${empty.length === 1 ? 'column' : 'columns'} ${empty.join(', ')} of the header ${empty.length === 1 ? 'has' : 'have'} no name`,
    );
  }
  if (problems.length > 0) {
    throw new SourceError('CSV_DUPLICATE_HEADER', `${where}: ${problems.join('; ')}; every column needs its own name`);
  }
}
