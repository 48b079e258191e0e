import { mkdirSync, statSync } from 'node:fs';
import { dirname, resolve } from 'node:path';

/**
 * `mkdir -p`, one level at a time. Node's `mkdirSync(path, { recursive: true })` loops forever
 * (at full CPU, deaf to SIGTERM) under a folder that reports ENOENT for a child it cannot create,
 * as `/proc/1` does; here every level is created once and any refusal is thrown as it is.
 */
export function makeFolders(path: string): void {
  const missing: string[] = [];
  let at = resolve(path);
  for (;;) {
    let exists = false;
    try {
      exists = statSync(at).isDirectory() || notAFolder(at);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    }
    if (exists) break;
    missing.push(at);
    const parent = dirname(at);
    if (parent === at) break;
    at = parent;
  }
  for (const folder of missing.reverse()) mkdirSync(folder);
}

function notAFolder(path: string): never {
  throw Object.assign(new Error(`ENOTDIR: not a directory, mkdir '${path}'`), { code: 'ENOTDIR', path });
}
