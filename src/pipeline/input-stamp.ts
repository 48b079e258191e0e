import { statSync } from 'node:fs';

/**
 * What tells an input rewritten while a run reads it: its inode, size and modification time. A
 * run reads each file twice (the validation pass, then the stage that sends it); an export job
 * that rewrites the file in between would have rows of two files sent under one file's line
 * numbers. Undefined when the file cannot be read (the reading then says why).
 */
export function inputStamp(path: string): string | undefined {
  try {
    const s = statSync(path);
    return `${s.ino}:${s.size}:${s.mtimeMs}`;
  } catch {
    return undefined;
  }
}
