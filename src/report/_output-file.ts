import { createWriteStream, openSync, renameSync, rmSync, statSync, type WriteStream } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { finished } from 'node:stream/promises';
import { EngageError } from '../errors.js';
import { makeFolders } from './make-folders.js';

/** An output being written: to a temporary file beside it, put in its place by `close`. */
export interface OutputFile {
  readonly stream: WriteStream;
  /**
   * Ends the stream; on success the file takes its final name, on failure the temporary one is
   * removed. `keep: false` (a run that failed part-way) removes it too: the previous file stays.
   */
  close(keep?: boolean): Promise<void>;
}

/**
 * Opens an output file (report, rejects, payloads) for writing, its folder created. Opened here,
 * synchronously, so that a path that cannot be written (a directory, a file where a folder should
 * be, no permission) is a clear error before row 1, not a stream error in the middle of a run.
 *
 * A regular file is written as `.<name>.<pid>.tmp` beside it and renamed over it at the end, so
 * an interrupted or failed run leaves the previous report whole instead of half of a new one.
 * Anything else (`/dev/stdout`, a pipe, `/dev/full`) is written in place: renaming over a device
 * would replace it.
 */
export function openOutputFile(path: string): OutputFile {
  const direct = existsAsNonFile(path);
  const temp = direct ? path : join(dirname(path), `.${basename(path)}.${process.pid}.tmp`);
  let stream: WriteStream;
  try {
    makeFolders(dirname(path));
    stream = createWriteStream(temp, { fd: openSync(temp, 'w') });
  } catch (error) {
    throw outputError(path, error);
  }
  let failure: unknown;
  stream.on('error', (e) => {
    failure ??= e;
  });
  return {
    stream,
    async close(keep = true) {
      if (!stream.writableEnded) stream.end();
      try {
        await finished(stream);
      } catch (error) {
        failure ??= error;
      }
      if (!keep && !direct) {
        rmSync(temp, { force: true });
        return;
      }
      if (failure === undefined && !direct) {
        try {
          renameSync(temp, path);
        } catch (error) {
          failure = error;
        }
      }
      if (failure !== undefined) {
        if (!direct) rmSync(temp, { force: true });
        throw outputError(path, failure);
      }
    },
  };
}

/** The error a failed output becomes: the file, and the reason in words (`no space left on the device`). */
export function outputError(path: string, error: unknown): EngageError {
  if (error instanceof EngageError) return error;
  return new EngageError('OUTPUT', `cannot write ${path}: ${reason(error)}`, { cause: error });
}

function existsAsNonFile(path: string): boolean {
  try {
    const s = statSync(path);
    return !s.isFile() && !s.isDirectory();
  } catch {
    return false;
  }
}

function reason(error: unknown): string {
  const code = (error as { code?: unknown }).code;
  if (code === 'EISDIR') return 'it is a directory';
  if (code === 'ENOTDIR') return 'a part of its path is a file, not a folder';
  if (code === 'EACCES' || code === 'EPERM') return 'permission denied';
  if (code === 'EROFS') return 'the file system is read-only';
  if (code === 'ENOSPC') return 'no space left on the device';
  if (code === 'EDQUOT') return 'the disk quota is used up';
  if (code === 'EIO') return 'the disk reported an input/output error';
  return error instanceof Error ? error.message : String(error);
}
