import { createWriteStream, mkdirSync, openSync, type WriteStream } from 'node:fs';
import { dirname } from 'node:path';
import { EngageError } from '../errors.js';

/**
 * Opens an output file (report, rejects, payloads) for writing, its folder created. Opened here,
 * synchronously, so that a path that cannot be written (a directory, a file where a folder should
 * be, no permission) is a clear error before row 1, not a stream error in the middle of a run.
 */
export function openOutputFile(path: string): WriteStream {
  try {
    mkdirSync(dirname(path), { recursive: true });
    return createWriteStream(path, { fd: openSync(path, 'w') });
  } catch (error) {
    throw new EngageError('OUTPUT', `cannot write ${path}: ${reason(error)}`, { cause: error });
  }
}

function reason(error: unknown): string {
  const code = (error as { code?: unknown }).code;
  if (code === 'EISDIR') return 'it is a directory';
  if (code === 'ENOTDIR') return 'a part of its path is a file, not a folder';
  if (code === 'EACCES' || code === 'EPERM') return 'permission denied';
  if (code === 'EROFS') return 'the file system is read-only';
  if (code === 'ENOSPC') return 'no space left on the device';
  return error instanceof Error ? error.message : String(error);
}
