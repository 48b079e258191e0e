import type { LedgerEntry } from '../ledger/index.js';

/** What a (resumed) run does with a valid row, given what the ledger knows of it (issue 5). */
export type ResumeDecision =
  /** Never sent, or safe to send again: send it. */
  | { readonly kind: 'send' }
  /** It has its outcome: report that, send nothing. */
  | { readonly kind: 'report'; readonly entry: LedgerEntry }
  /** It may have been applied and resending could duplicate it: report `unknown`, keep the intent. */
  | { readonly kind: 'in_doubt' };

export const IN_DOUBT_MESSAGE =
  'the previous run stopped while this request was in flight; it may have been applied and was not resent to avoid a duplicate (check the account, or resume with --resend-unknown)';

/**
 * - no entry: never sent → send;
 * - ok / failed: final → report it (a failed row is fixed through the rejects file, not resent);
 * - intent (in flight at a crash): resend when the operation is idempotent or the user passed
 *   --resend-unknown; otherwise in doubt;
 * - unknown (a lost answer): resend only with --resend-unknown.
 */
export function resumeDecision(entry: LedgerEntry | undefined, idempotent: boolean, resendUnknown: boolean): ResumeDecision {
  if (entry === undefined) return { kind: 'send' };
  switch (entry.state) {
    case 'ok':
    case 'failed':
      return { kind: 'report', entry };
    case 'unknown':
      return resendUnknown ? { kind: 'send' } : { kind: 'report', entry };
    case 'intent':
      return idempotent || resendUnknown ? { kind: 'send' } : { kind: 'in_doubt' };
  }
}
