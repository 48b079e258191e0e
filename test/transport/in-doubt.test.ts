import { describe, expect, it } from 'vitest';
import {
  inDoubtBefore,
  resumeDecision,
  verdict,
  type AttemptAnswer,
  type InDoubtMode,
  type RowState,
  type Verdict,
} from '../../src/transport/in-doubt.js';

const events = false; // events, product events, deal create, product create
const contacts = true; // contacts, deal update and update_or_create, webpush

describe('verdict: operation × answer → what becomes of the row', () => {
  it.each<[AttemptAnswer, boolean, InDoubtMode, boolean, boolean, Verdict]>([
    // answer, idempotent, mode, an earlier attempt may have been applied, exhausted → verdict
    ['applied', events, 'unknown', false, false, 'ok'],
    ['applied', contacts, 'unknown', true, false, 'ok'],
    ['refused', events, 'unknown', false, false, 'failed'],
    ['refused', contacts, 'resend', true, false, 'failed'],
    // A refusal of a resend shows only that the resend was not applied.
    ['refused', events, 'resend', true, false, 'unknown'],
    ['refused', events, 'unknown', true, false, 'unknown'],
    ['malformed_success', events, 'unknown', false, false, 'unknown'],
    ['malformed_success', contacts, 'resend', false, false, 'unknown'],
    ['exists', events, 'unknown', false, false, 'failed'],
    // "Exists" after an attempt in doubt: that attempt's create, or a record that was there before.
    ['exists', events, 'resend', true, false, 'unknown'],
    ['exists', events, 'unknown', true, false, 'unknown'],
    ['server_error', events, 'unknown', false, false, 'unknown'],
    ['server_error', events, 'resend', false, false, 'retry'],
    ['server_error', contacts, 'unknown', false, false, 'retry'],
    ['server_error', contacts, 'unknown', false, true, 'unknown'],
    ['server_error', events, 'resend', false, true, 'unknown'],
    ['lost_answer', events, 'unknown', false, false, 'unknown'],
    ['lost_answer', events, 'resend', false, false, 'retry'],
    ['lost_answer', contacts, 'unknown', false, false, 'retry'],
    ['lost_answer', contacts, 'unknown', false, true, 'unknown'],
    ['never_left', events, 'unknown', false, false, 'retry'],
    ['never_left', events, 'unknown', false, true, 'not_sent'],
    ['never_left', events, 'resend', true, true, 'unknown'],
    ['never_left', contacts, 'unknown', false, true, 'not_sent'],
    ['throttled', events, 'unknown', false, false, 'retry'],
    ['throttled', events, 'unknown', false, true, 'not_sent'],
    ['throttled', contacts, 'resend', true, true, 'unknown'],
  ])(
    '%s, idempotent %s, mode %s, in doubt %s, exhausted %s → %s',
    (answer, idempotent, mode, mayHaveApplied, exhausted, expected) => {
      expect(verdict(answer, { idempotent, mode, mayHaveApplied, exhausted })).toBe(expected);
    },
  );
});

describe('resumeDecision: what a resumed run does with a row the ledger knows', () => {
  it.each<[string, RowState | undefined, boolean, boolean, string]>([
    ['never sent', undefined, false, false, 'send'],
    ['ok', 'ok', false, true, 'report'],
    ['failed', 'failed', true, true, 'report'],
    ['in flight, idempotent', 'intent', true, false, 'send'],
    ['in flight, not idempotent', 'intent', false, false, 'in_doubt'],
    ['in flight, not idempotent, --resend-unknown', 'intent', false, true, 'send'],
    ['unknown', 'unknown', true, false, 'report'],
    ['unknown, --resend-unknown', 'unknown', false, true, 'send'],
  ])('%s → %s', (_name, state, idempotent, resend, kind) => {
    expect(resumeDecision(state, idempotent, resend).kind).toBe(kind);
  });

  it('a row in flight or unknown before this run may have been applied already', () => {
    expect(
      [undefined, 'intent', 'ok', 'failed', 'unknown'].map((s) => inDoubtBefore(s as RowState | undefined)),
    ).toEqual([false, true, false, false, true]);
  });
});
