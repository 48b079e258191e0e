import { isAbsolute, relative } from 'node:path';

/**
 * A path as the user would type it: relative to the cwd when below it, else absolute. (The
 * same rule as `pipeline/display-path.ts`, repeated here because the ledger comes before the
 * pipeline in the data flow and must not import from it.)
 */
export function displayPath(path: string, cwd: string): string {
  if (!isAbsolute(path)) return path;
  const rel = relative(cwd, path);
  return rel && !rel.startsWith('..') && !isAbsolute(rel) ? rel : path;
}
