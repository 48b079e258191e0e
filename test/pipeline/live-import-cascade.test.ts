import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'csv-parse/sync';
import { describe, expect, it } from 'vitest';
import { loadJob } from '../../src/config/load-job.js';
import { LedgerError } from '../../src/errors.js';
import type { Ledger, LedgerEntry, Outcome } from '../../src/ledger/index.js';
import { runLiveImport } from '../../src/pipeline/live-import.js';
import type { LiveImportOptions } from '../../src/pipeline/live-options.js';
import type { Progress } from '../../src/pipeline/progress.js';
import type { ApiRequest, SendOutcome, Transport } from '../../src/transport/index.js';
import { tmpTree } from '../helpers/tmp.js';

const SILENT: Progress = {
  stage: () => ({ tick: () => undefined, finish: () => undefined }),
  stop: () => undefined,
} as unknown as Progress;

/** A ledger in memory; `failIntentAt`: the n-th intent fails as a full disk would. */
function memoryLedger(
  failIntentAt?: number,
  seed: readonly (readonly [string, LedgerEntry])[] = [],
): Ledger & { rows: Map<string, LedgerEntry> } {
  const rows = new Map<string, LedgerEntry>(seed);
  let intents = 0;
  return {
    rows,
    runId: 'r',
    runDir: '/tmp/run',
    finished: false,
    identity: {} as Ledger['identity'],
    get: (s, l) => rows.get(`${s}:${l}`),
    async recordIntent(s, l) {
      if (++intents === failIntentAt)
        throw new LedgerError('LEDGER', 'cannot use the run ledger: database or disk is full (SQLITE_FULL)');
      rows.set(`${s}:${l}`, { state: 'intent', status: null, id: null, message: null });
    },
    async recordIntents(s, lines) {
      for (const l of lines) await this.recordIntent(s, l);
    },
    async recordOutcome(s, l, o: Outcome) {
      rows.set(`${s}:${l}`, { state: o.state, status: o.status ?? null, id: o.id ?? null, message: o.message ?? null });
    },
    async recordOutcomes(s, outcomes) {
      for (const { line, outcome } of outcomes) await this.recordOutcome(s, line, outcome);
    },
    async forget(s, l) {
      if (rows.get(`${s}:${l}`)?.state === 'intent') rows.delete(`${s}:${l}`);
    },
    counts: () => {
      const counts = { intent: 0, ok: 0, failed: 0, unknown: 0 };
      for (const e of rows.values()) counts[e.state]++;
      return counts;
    },
    markFinished: async () => undefined,
    reopen: async () => undefined,
    close: async () => undefined,
  };
}

function fakeTransport(answer: (req: ApiRequest) => Promise<SendOutcome>): Transport & { sent: ApiRequest[] } {
  const sent: ApiRequest[] = [];
  return {
    sent,
    // As the real transport: the row's intent is recorded when its request is about to leave.
    send: async (req) => {
      if (req.beforeFirstAttempt !== undefined && !(await req.beforeFirstAttempt()))
        return {
          kind: 'not_sent',
          message: 'not sent: its intent could not be recorded',
          attempts: 0,
          mayHaveApplied: false,
        };
      sent.push(req);
      return answer(req);
    },
    getJson: async () => ({}),
    stats: () => ({ requests: sent.length, retries: 0, throttled: 0, lostAnswers: 0 }),
    stopped: () => undefined,
    close: async () => undefined,
  } as Transport & { sent: ApiRequest[] };
}

const ok = (id: string): SendOutcome => ({ kind: 'ok', status: 200, body: { id }, id, attempts: 1 });
const delay = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function contactsThenEvents(contacts: string, events: string) {
  const dir = tmpTree({
    'contacts.csv': contacts,
    'contacts.yaml':
      'resource: user\nsource: { file: contacts.csv }\nkey: custom_id\nfields: { custom_id: custom_id, email: email }\n',
    'events.csv': events,
    'events.yaml':
      'resource: event\nsource: { file: events.csv }\nkey: id\nfields:\n  user_custom_id: user\n  name: { value: Visited }\n  data.id: id\n',
    'job.yaml': 'mappings: [events.yaml, contacts.yaml]\n',
  });
  const options: LiveImportOptions = {
    cwd: dir,
    report: join(dir, 'report.csv'),
    rate: 10,
    concurrency: 4,
    failOnInvalid: false,
    resendUnknown: false,
  };
  return { dir, options, job: await loadJob(join(dir, 'job.yaml'), { cwd: dir }) };
}

const lines = (dir: string) =>
  (parse(readFileSync(join(dir, 'report.csv')), { columns: true }) as Record<string, string>[]).map((r) =>
    `${r.file}:${r.line} ${r.key} ${r.status} ${r.message}`.trim(),
  );

describe('the skipped cascade follows input order, not answer order', () => {
  it('a contact that failed and was then created by a later row of the same key does not block its events', async () => {
    const { dir, options, job } = await contactsThenEvents(
      'custom_id,email\nC-1,ok@x\nC-17,bad\nC-17,good@x\n',
      'id,user\nE1,C-17\n',
    );
    // Line 3 fails, but its answer arrives after line 4's success.
    const transport = fakeTransport(async (req) => {
      if ((req.body as { email?: string }).email === 'bad') {
        await delay(40);
        return { kind: 'failed', status: 400, message: 'email: Enter a valid email address.', attempts: 1 };
      }
      await delay(2);
      return ok('9');
    });
    await runLiveImport(job, options, {
      transport,
      ledger: memoryLedger(),
      progress: SILENT,
      signal: new AbortController().signal,
    });
    expect(lines(dir)).toEqual([
      'contacts.csv:2 C-1 ok',
      'contacts.csv:3 C-17 failed email: Enter a valid email address.',
      'contacts.csv:4 C-17 ok',
      'events.csv:2 E1 ok',
    ]);
  });

  it('and a failure of the last row of a key blocks them, whatever answered first', async () => {
    const { dir, options, job } = await contactsThenEvents(
      'custom_id,email\nC-17,good@x\nC-17,bad\n',
      'id,user\nE1,C-17\n',
    );
    const transport = fakeTransport(async (req) => {
      if ((req.body as { email?: string }).email === 'bad')
        return { kind: 'failed', status: 400, message: 'email: Enter a valid email address.', attempts: 1 };
      await delay(40);
      return ok('9');
    });
    await runLiveImport(job, options, {
      transport,
      ledger: memoryLedger(),
      progress: SILENT,
      signal: new AbortController().signal,
    });
    expect(lines(dir).at(-1)).toBe(
      "events.csv:2 E1 skipped depends on user custom_id 'C-17', which failed at contacts.csv line 3",
    );
    expect(transport.sent).toHaveLength(2);
  });
});

describe('rejects of a live run', () => {
  it('hold the skipped rows with their reason, in input order whatever answered first, so fixing the parent lets them go round again', async () => {
    const { dir, options, job } = await contactsThenEvents(
      'custom_id,email\nC-1,bad\nC-2,bad\nC-3,good@x\n',
      'id,user\nE1,C-2\nE2,C-3\nE3,C-1\n',
    );
    const transport = fakeTransport(async (req) => {
      const body = req.body as { email?: string; custom_id?: string };
      // C-1 answers last: its reject comes after C-2's but belongs before it.
      if (body.email === 'bad') await delay(body.custom_id === 'C-1' ? 60 : 5);
      return body.email === 'bad'
        ? { kind: 'failed', status: 400, message: 'email: Enter a valid email address.', attempts: 1 }
        : ok('9');
    });
    await runLiveImport(
      job,
      { ...options, rejects: join(dir, 'rej.csv') },
      { transport, ledger: memoryLedger(), progress: SILENT, signal: new AbortController().signal },
    );
    expect(readFileSync(join(dir, 'rej.contacts.csv'), 'utf8')).toBe(
      'custom_id,email,error\nC-1,bad,email: Enter a valid email address.\nC-2,bad,email: Enter a valid email address.\n',
    );
    expect(readFileSync(join(dir, 'rej.events.csv'), 'utf8')).toBe(
      `id,user,error\nE1,C-2,"depends on user custom_id 'C-2', which failed at contacts.csv line 3"\nE3,C-1,"depends on user custom_id 'C-1', which failed at contacts.csv line 2"\n`,
    );
  });
});

describe('a broken ledger stops the run like a 401', () => {
  it('nothing more is sent, every later row is reported not_sent, and the run ends fatal (exit 3)', async () => {
    const { dir, options, job } = await contactsThenEvents(
      'custom_id,email\nC1,a@x\nC2,b@x\nC3,c@x\n',
      'id,user\nE1,C1\nE2,C2\n',
    );
    const transport = fakeTransport(async () => ok('1'));
    const result = await runLiveImport(job, options, {
      transport,
      ledger: memoryLedger(2),
      progress: SILENT,
      signal: new AbortController().signal,
    });
    expect(result.fatal).toBe(true);
    expect(result.aborted).toBe('the run stopped: cannot use the run ledger: database or disk is full (SQLITE_FULL)');
    const why =
      'not sent: the run stopped on an error (cannot use the run ledger: database or disk is full (SQLITE_FULL))';
    expect(lines(dir)).toEqual([
      'contacts.csv:2 C1 ok',
      `contacts.csv:3 C2 not_sent ${why}`,
      `contacts.csv:4 C3 not_sent ${why}`,
      `events.csv:2 E1 not_sent ${why}`,
      `events.csv:3 E2 not_sent ${why}`,
    ]);
    expect(transport.sent).toHaveLength(1);
  });
});

describe('a row in doubt from a crash, resent with --resend-unknown, that does not go', () => {
  it('stays unknown in the report and keeps its intent in the ledger', async () => {
    const { dir, options, job } = await contactsThenEvents('custom_id,email\nC1,a@x\n', 'id,user\nE1,C1\n');
    // Source 1 is events (contacts come first): line 2 was in flight when the last run was killed.
    const ledger = memoryLedger(undefined, [
      ['0:2', { state: 'ok', status: 200, id: '1', message: null }],
      ['1:2', { state: 'intent', status: null, id: null, message: null }],
    ]);
    // The resend meets only 429s, then the run is interrupted: nothing was applied.
    const transport = fakeTransport(async () => ({
      kind: 'not_sent',
      message: 'not sent again: the run was interrupted while the request waited to be resent',
      attempts: 1,
      mayHaveApplied: false,
    }));
    await runLiveImport(
      job,
      { ...options, resendUnknown: true },
      { transport, ledger, progress: SILENT, signal: new AbortController().signal },
    );
    expect(lines(dir).at(-1)).toMatch(
      /^events\.csv:2 E1 unknown the previous run stopped while this request was in flight; .*; resending it was stopped: not sent again: the run was interrupted while the request waited to be resent$/,
    );
    expect(ledger.rows.get('1:2')?.state).toBe('intent');
  });
});
