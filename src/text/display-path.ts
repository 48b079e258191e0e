import { isAbsolute, relative } from 'node:path';

/**
 * A path as the user would type it: relative to `cwd` when it is below it, else as given. Every
 * message that names a file (a CSV, a mapping, the report, the run ledger, a lock) shows it so.
 */
export function displayPath(path: string, cwd: string): string {
  if (!isAbsolute(path)) return path;
  const rel = relative(cwd, path);
  return rel && !rel.startsWith('..') && !isAbsolute(rel) ? rel : path;
}
