import { describe, expect, it } from 'vitest';
import type { LedgerEntry } from '../../src/ledger/index.js';
import { resumeDecision } from '../../src/pipeline/resume-decision.js';

const entry = (state: LedgerEntry['state']): LedgerEntry => ({ state, status: null, id: null, message: null });

describe('resumeDecision', () => {
  it.each([
    ['never sent', undefined, false, false, 'send'],
    ['ok', entry('ok'), false, true, 'report'],
    ['failed', entry('failed'), true, true, 'report'],
    ['in flight, idempotent', entry('intent'), true, false, 'send'],
    ['in flight, not idempotent', entry('intent'), false, false, 'in_doubt'],
    ['in flight, not idempotent, --resend-unknown', entry('intent'), false, true, 'send'],
    ['unknown', entry('unknown'), true, false, 'report'],
    ['unknown, --resend-unknown', entry('unknown'), false, true, 'send'],
  ] as const)('%s → %s', (_name, e, idempotent, resend, kind) => {
    expect(resumeDecision(e, idempotent, resend).kind).toBe(kind);
  });
});
