import { EngageError, EXIT } from '../errors.js';

/** The exit codes live beside the error codes that map to them, in one table. */
export { EXIT } from '../errors.js';

/** A disk that fails while a file is being written (full, I/O error): the run was cut short, not misused. */
const DISK_FAILURES = new Set(['ENOSPC', 'EIO', 'EDQUOT', 'EFBIG']);

/**
 * The exit code of a command ended by an error: its code's, except an output that a failing disk
 * cut short (3, stopped, as the README has it: the rows sent so far are in the ledger), and
 * anything unforeseen (internal). The one answer for the process, its log and its alert.
 */
export function exitCodeOf(error: unknown): number {
  if (!(error instanceof EngageError)) return EXIT.INTERNAL;
  if (error.code === 'OUTPUT' && DISK_FAILURES.has(String((error.cause as { code?: unknown } | undefined)?.code)))
    return EXIT.ABORTED;
  return error.exitCode;
}
