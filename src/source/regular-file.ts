import { stat } from 'node:fs/promises';
import { SourceError } from '../errors.js';

/**
 * Refuses an input that is a pipe, a socket or a device, before anything opens it: a run reads
 * its inputs more than once (its fingerprint, validation, then sending), which such a file cannot
 * give, and opening a pipe with no writer, or reading /dev/zero, would never end. A path that
 * cannot be stat'ed is left to the opening, which says why.
 */
export async function refuseIrregularInput(path: string): Promise<void> {
  const kind = await stat(path).then(
    (s) => (s.isFIFO() ? 'a pipe' : s.isSocket() ? 'a socket' : s.isCharacterDevice() ? 'a device' : undefined),
    () => undefined,
  );
  if (kind !== undefined)
    throw new SourceError(
      'CSV_READ',
      `${path}: is ${kind}, not a regular file: save it to a file first (the input is read more than once)`,
    );
}

/** Why an input could not be opened or read, in the words every command uses. */
export function ioReason(error: unknown, fallback: string): string {
  const code = (error as { code?: unknown }).code;
  if (code === 'ENOENT') return 'file not found';
  if (code === 'EACCES' || code === 'EPERM') return 'permission denied';
  if (code === 'EISDIR') return 'is a directory, not a file';
  return `${fallback} (${error instanceof Error ? error.message : String(error)})`;
}
