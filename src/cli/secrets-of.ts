import { readFileSync, statSync } from 'node:fs';
import { resolve } from 'node:path';
import type { CliIo } from './command.js';

/** The secrets a refusal must not repeat: the key and the notify URL, whichever way they were given. */
export function secretsOf(io: CliIo, apiKeyFile: string | undefined): string[] {
  const given = [io.env['ENGAGE_API_KEY'], io.env['ENGAGE_NOTIFY_URL']];
  if (apiKeyFile !== undefined) given.push(keyInFile(resolve(io.cwd, apiKeyFile)));
  // Very short values would mask ordinary words; no key or webhook URL is that short.
  return given.flatMap((s) => (s === undefined ? [] : [s, s.trim()])).filter((s) => s.length >= 8);
}

/** What a key file holds, when it is a small file that can be read ('' otherwise). */
function keyInFile(path: string): string {
  try {
    // A regular file only: reading a pipe (a FIFO named as the key file) would wait for a writer forever.
    const stat = statSync(path);
    return stat.isFile() && stat.size <= 4096 ? readFileSync(path, 'utf8') : '';
  } catch {
    return '';
  }
}
