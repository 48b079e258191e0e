import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'csv-parse/sync';

/** The lines of a report CSV the CLI wrote in `dir` (default `out/report.csv`), one object per line. */
export function readReport(dir: string, file = 'out/report.csv'): Record<string, string>[] {
  return parse(readFileSync(join(dir, file)), { columns: true }) as Record<string, string>[];
}
