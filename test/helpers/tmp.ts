import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll } from 'vitest';

/**
 * Names every folder this helper makes start with: the process id keeps one test process's folders
 * apart from those of others running at the same time, so a test can count its own.
 */
export const TMP_PREFIX = `engage-import-test-${process.pid}-`;

const made = new Set<string>();

/**
 * A fresh temporary folder with the given files (path → content) written into it. It is deleted
 * when the test file that made it has finished (folders made at describe level live as long as
 * the file's tests need them).
 */
export function tmpTree(files: Record<string, string | Buffer> = {}): string {
  const dir = mkdtempSync(join(tmpdir(), TMP_PREFIX));
  made.add(dir);
  for (const [name, content] of Object.entries(files)) {
    const path = join(dir, name);
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, content);
  }
  return dir;
}

/** Deletes every folder `tmpTree` has made so far in this test file. */
export function removeTmpTrees(): void {
  for (const dir of made) {
    // maxRetries: on a slow machine a child process may still hold a file for a moment.
    rmSync(dir, { recursive: true, force: true, maxRetries: 3 });
    made.delete(dir);
  }
}

// Registered once per test file (vitest loads this module afresh for each file).
afterAll(removeTmpTrees);
