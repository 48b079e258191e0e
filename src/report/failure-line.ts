import type { RowFailure } from '../errors.js';
import type { ReportLine } from './report-line.js';

/** The part of a report line that says how a row failed; the message is always there, so a caller can append a note. */
export interface FailureFields extends Pick<ReportLine, 'http_status'> {
  readonly status: 'failed' | 'unknown' | 'not_sent';
  readonly message: string;
}

/**
 * A row's failure → its report line's status, http_status and message, the same way for a row
 * sent on its own and a row sent in a bulk import:
 * - `not_sent` that may have been applied (an earlier attempt got a 5xx or lost its answer) is
 *   `unknown`, and says so: a row the API may hold is never reported as not sent;
 * - `via: 'bulk_import'`: the message names the import ("bulk import <id>: …"). A refused row's
 *   message is the service's words about the row, so it is always named; an unknown row's message
 *   is the tool's own and often names the import already ("import <id> did not end …"), so only
 *   when it does not.
 */
export function failureLine(failure: RowFailure, via: 'request' | 'bulk_import' = 'request'): FailureFields {
  const inDoubt = failure.kind === 'not_sent' && failure.mayHaveApplied === true;
  let message = inDoubt ? `${failure.message}; it may have been applied` : failure.message;
  if (via === 'bulk_import') {
    const { importId } = failure;
    const named = failure.kind !== 'failed' && importId !== undefined && message.includes(importId);
    if (!named) message = `${importId === undefined ? 'bulk import' : `bulk import ${importId}`}: ${message}`;
  }
  return {
    status: inDoubt ? 'unknown' : failure.kind,
    ...(failure.status !== undefined && { http_status: failure.status }),
    message,
  };
}
