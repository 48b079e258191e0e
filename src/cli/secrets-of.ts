import { closeSync, constants, openSync, readFileSync, readSync, statSync } from 'node:fs';
import { resolve } from 'node:path';
import type { CliIo } from './command.js';

/** The secrets a refusal must not repeat: the key and the notify URL, whichever way they were given. */
export function secretsOf(io: CliIo, apiKeyFile: string | undefined): string[] {
  const given = [io.env['ENGAGE_API_KEY'], io.env['ENGAGE_NOTIFY_URL']];
  if (apiKeyFile !== undefined) given.push(keyInFile(resolve(io.cwd, apiKeyFile)));
  // Very short values would mask ordinary words; no key or webhook URL is that short.
  return given.flatMap((s) => (s === undefined ? [] : [s, s.trim()])).filter((s) => s.length >= 8);
}

/** Key files longer than this are not keys: nothing of them is hidden. */
const MAX_KEY_FILE = 4096;

/** What a key file holds, when it is a small file that can be read ('' otherwise). */
function keyInFile(path: string): string {
  try {
    const stat = statSync(path);
    if (stat.isFile()) return stat.size <= MAX_KEY_FILE ? readFileSync(path, 'utf8') : '';
    if (stat.isDirectory()) return '';
    return waitingInPipe(path);
  } catch {
    return '';
  }
}

/**
 * A pipe (`--api-key-file <(pass show key)`, `/dev/stdin`) is read without waiting: what its
 * writer has put there already, or nothing. A blocking read of a pipe with no writer would wait
 * forever, and a refusal has no run left to spoil by draining the key.
 */
function waitingInPipe(path: string): string {
  const fd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK);
  try {
    const buffer = Buffer.alloc(MAX_KEY_FILE + 1);
    const read = readSync(fd, buffer, 0, buffer.length, null);
    return read <= MAX_KEY_FILE ? buffer.toString('utf8', 0, read) : '';
  } finally {
    closeSync(fd);
  }
}
