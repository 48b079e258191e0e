import { closeSync, constants, openSync, readFileSync, readSync, statSync } from 'node:fs';
import { resolve } from 'node:path';
import type { CliIo } from './command.js';

/**
 * The secrets a refusal must not repeat: the key and the notify URL, whichever way they were
 * given. `read`: the keys a command read (`CliIo.keyRead`); the key file is read only when there
 * are none (a pipe a command read is empty now).
 */
export function secretsOf(io: CliIo, apiKeyFile: string | undefined, read: readonly string[] = []): string[] {
  const given = [io.env['ENGAGE_API_KEY'], io.env['ENGAGE_NOTIFY_URL'], ...read];
  if (apiKeyFile !== undefined && read.length === 0) given.push(keyInFile(resolve(io.cwd, apiKeyFile)));
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

/** How long a refusal waits for a slow pipe's writer (`pass show` decrypting the key). */
const PIPE_WAIT_MS = 1000;
const PIPE_POLL_MS = 20;

/**
 * A pipe (`--api-key-file <(pass show key)`, `/dev/stdin`) is read without blocking: what its
 * writer puts there, to its end, within a second (its writer may open it late). A blocking read
 * of a pipe with no writer would wait forever, and a refusal has no run left to spoil by draining
 * the key. A pipe the run has read already is not asked (`CliIo.keyRead`).
 */
function waitingInPipe(path: string): string {
  const fd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK);
  const pause = new Int32Array(new SharedArrayBuffer(4));
  const deadline = Date.now() + PIPE_WAIT_MS;
  try {
    const buffer = Buffer.alloc(MAX_KEY_FILE + 1);
    let read = 0;
    for (;;) {
      let n: number;
      try {
        n = readSync(fd, buffer, read, buffer.length - read, null);
      } catch (error) {
        // EAGAIN: a writer is there and has not written all yet (a key may come in pieces).
        if ((error as NodeJS.ErrnoException).code !== 'EAGAIN') throw error;
        if (Date.now() >= deadline) break;
        Atomics.wait(pause, 0, 0, PIPE_POLL_MS);
        continue;
      }
      if (n === 0) {
        // Its writer is done, or has not opened the pipe yet.
        if (read > 0 || Date.now() >= deadline) break;
        Atomics.wait(pause, 0, 0, PIPE_POLL_MS);
        continue;
      }
      read += n;
      if (read > MAX_KEY_FILE) return '';
    }
    return buffer.toString('utf8', 0, read);
  } finally {
    closeSync(fd);
  }
}
