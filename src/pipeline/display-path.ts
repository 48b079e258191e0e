import { isAbsolute, relative } from 'node:path';

/** A path as the user would type it: relative to the cwd when below it, else absolute. */
export function displayPath(path: string, cwd: string): string {
  const rel = relative(cwd, path);
  return rel && !rel.startsWith('..') && !isAbsolute(rel) ? rel : path;
}
