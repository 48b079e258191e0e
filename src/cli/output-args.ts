import { mkdtempSync, rmdirSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { ConfigError } from '../errors.js';
import type { ProtectedPath } from '../pipeline/output-paths.js';
import { makeFolders } from '../report/make-folders.js';

/**
 * An output option as a path. `--report somedir/` names a folder: refused here, because the
 * trailing slash is lost once the path is resolved and a file called `somedir` would be written.
 */
export function outputPath(cwd: string, option: string, value: string): string {
  if (/[\\/]$/.test(value)) {
    const example = join(value, option === '--payloads' ? 'payloads.ndjson' : 'report.csv');
    throw new ConfigError('USAGE', `${option} ${value} is a folder: name a file (for example ${example})`);
  }
  return resolve(cwd, value);
}

/**
 * A `--state-dir` that is only read (a preview, the state commands): a file there is a usage
 * error naming the option; a missing folder is left to the reader (it finds no state).
 */
export function readableStateDir(cwd: string, value: string): string {
  const path = resolve(cwd, value);
  refuseFile(path, value, 'name the folder the runs keep their state in');
  return path;
}

/** A `--state-dir` that names a file: a usage error (a missing path is not one). */
function refuseFile(path: string, value: string, advice: string): void {
  let isFile = false;
  try {
    isFile = !statSync(path).isDirectory();
  } catch {
    // Missing: nothing there yet.
  }
  if (isFile) throw new ConfigError('USAGE', `--state-dir ${value} is a file, not a folder: ${advice}`);
}

/**
 * The `--state-dir` checked before a ledger is opened in it: created if missing, and proven
 * writable by creating (and removing) a folder in it. A file, a read-only folder or a place like
 * `/proc/1` is a usage error naming the option, never an internal error or an endless retry.
 */
export function checkStateDir(cwd: string, value: string): string {
  const path = resolve(cwd, value);
  refuseFile(path, value, 'name a folder where run ledgers can be kept');
  try {
    makeFolders(path);
    rmdirSync(mkdtempSync(join(path, '.probe-')));
  } catch (error) {
    throw new ConfigError(
      'USAGE',
      `--state-dir ${value}: run ledgers cannot be written there (${reason(error)}); name a folder you can write to`,
      { cause: error },
    );
  }
  return path;
}

/** What no output of a live run may overwrite besides the job's inputs: the key file and the ledgers. */
export function protectedPaths(
  cwd: string,
  args: { readonly 'api-key-file'?: string | undefined; readonly 'state-dir'?: string | undefined },
): ProtectedPath[] {
  const paths: ProtectedPath[] = [];
  if (args['api-key-file'] !== undefined)
    paths.push({ path: resolve(cwd, args['api-key-file']), what: 'the --api-key-file' });
  if (args['state-dir'] !== undefined)
    paths.push({ path: resolve(cwd, args['state-dir']), what: 'the --state-dir (run ledgers)', folder: true });
  return paths;
}

function reason(error: unknown): string {
  const code = (error as { code?: unknown }).code;
  if (code === 'EACCES' || code === 'EPERM') return 'permission denied';
  if (code === 'EROFS') return 'the file system is read-only';
  if (code === 'ENOTDIR') return 'a part of the path is a file, not a folder';
  if (code === 'ENOENT') return 'the folder cannot be created there';
  if (code === 'ENOSPC') return 'no space left on the device';
  return error instanceof Error ? error.message : String(error);
}
