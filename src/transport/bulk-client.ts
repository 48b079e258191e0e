/**
 * The client of the bulk CSV import endpoints: upload one chunk file, then poll its status until
 * it ends. Both go through the run's `Transport`, so they share its rate limit, 429 pauses
 * (`retry-after`), retries, auth headers and key redaction; the upload is a `FormData` with the
 * file as a `Blob` (`fs.openAsBlob` streams it from disk, and can be read again for a retry).
 * The upload is idempotent in effect (the importer is an upsert), so a lost answer is resent.
 */
import { setTimeout as delay } from 'node:timers/promises';
import { DEFAULTS } from '../defaults.js';
import { parseImportStatus, parseUploadAnswer, type ImportStatusReport } from './bulk-answers.js';
import type { RowFailure } from '../errors.js';
import type { Transport } from './types.js';

export type BulkKind = 'users' | 'products' | 'deals';
export type BulkSeparator = 'comma' | 'tab' | 'semicolon';

/** Pauses between two status polls: 1, 2, 4, 8, then 15 s again and again. */
export const DEFAULT_POLL_DELAYS_MS: readonly number[] = [1000, 2000, 4000, 8000, 15_000];
/** How long one import is waited for before its rows are given up as unknown. */
export const DEFAULT_BULK_TIMEOUT_MS = DEFAULTS.bulkTimeoutMinutes * 60_000;

export interface BulkClientOptions {
  readonly transport: Pick<Transport, 'send'>;
  /** Must reject (or resolve) early when `signal` aborts. Default: `setTimeout` from `node:timers/promises`. */
  readonly sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  /** Default `Date.now`. */
  readonly now?: () => number;
  /** Stops waiting (the run was interrupted); the import goes on at the service. */
  readonly signal?: AbortSignal;
  /** Pauses between polls; the last one repeats. Default `DEFAULT_POLL_DELAYS_MS`. */
  readonly pollDelaysMs?: readonly number[];
  /** Default `DEFAULT_BULK_TIMEOUT_MS` (30 min). */
  readonly timeoutMs?: number;
}

export interface UploadRequest {
  readonly kind: BulkKind;
  /** The chunk file, UTF-8 CSV with a header row. */
  readonly file: Blob;
  /** The file name the form gives (for the service's records). Default `chunk.csv`. */
  readonly fileName?: string;
  /** Default `comma` (then not sent). */
  readonly separator?: BulkSeparator;
  /** CSV column → field name; not sent when empty. */
  readonly columnMapping?: Readonly<Record<string, string>>;
  /** Users only: tag names added to every imported contact (no commas inside a name). */
  readonly tags?: readonly string[];
  /** Users only: list names (no commas inside a name). */
  readonly lists?: readonly string[];
  /** Users only; not sent when undefined. */
  readonly triggerAutomations?: boolean;
}

/**
 * - `accepted`: the import exists; `status` when the answer was the whole status object.
 * - `refused`: the service refused the upload (4xx): nothing was imported.
 * - `unknown`: an import may exist but its id is not known (a 2xx without an id, a lost answer
 *   given up): the rows are safe to upload again (upsert), and must not be called ok.
 * - `not_sent`: the run stopped first; `mayHaveApplied` as in `SendOutcome`.
 * The last two are `RowFailure`s (src/errors.ts), as the transport's are.
 */
export type UploadOutcome =
  | {
      readonly kind: 'accepted';
      readonly importId: string;
      readonly status: ImportStatusReport | undefined;
      readonly attempts: number;
    }
  | { readonly kind: 'refused'; readonly status: number | undefined; readonly message: string }
  | RowFailure<'unknown'>
  | (RowFailure<'not_sent'> & { readonly mayHaveApplied: boolean });

/**
 * - `ended`: the import finished, or ended without finishing (`report.state` says which).
 * - `timeout`: still running after the timeout; the message names the import id.
 * - `lost`: the service refused the status call (a 4xx, say 404): it does not know the import.
 * - `stopped`: the run was interrupted while waiting; the import may go on at the service.
 */
export type WaitOutcome =
  | { readonly kind: 'ended'; readonly report: ImportStatusReport; readonly polls: number }
  | {
      readonly kind: 'timeout';
      readonly message: string;
      readonly last: ImportStatusReport | undefined;
      readonly polls: number;
    }
  | { readonly kind: 'lost'; readonly message: string; readonly polls: number }
  | { readonly kind: 'stopped'; readonly message: string; readonly polls: number };

export interface BulkClient {
  upload(request: UploadRequest): Promise<UploadOutcome>;
  /** Polls `GET /import/status/?import_id=` with backoff until the import ends, the timeout passes, or the run stops. */
  waitForImport(importId: string): Promise<WaitOutcome>;
}

export function createBulkClient(options: BulkClientOptions): BulkClient {
  const { transport, signal } = options;
  const now = options.now ?? Date.now;
  const sleep = options.sleep ?? ((ms: number, s?: AbortSignal) => delay(ms, undefined, s ? { signal: s } : {}));
  const delays = options.pollDelaysMs ?? DEFAULT_POLL_DELAYS_MS;
  const timeoutMs = options.timeoutMs ?? DEFAULT_BULK_TIMEOUT_MS;
  if (delays.length === 0 || delays.some((d) => !(d >= 0)))
    throw new RangeError('pollDelaysMs: at least one pause, each 0 or more');

  return {
    async upload(request) {
      const outcome = await transport.send({
        method: 'POST',
        path: uploadPath(request),
        body: uploadForm(request),
        idempotent: true,
      });
      switch (outcome.kind) {
        case 'ok': {
          const answer = parseUploadAnswer(outcome.body);
          if (answer === undefined)
            return {
              kind: 'unknown',
              message: `the upload was answered ${outcome.status} without an import id; its rows may have been imported`,
            };
          return { kind: 'accepted', importId: answer.importId, status: answer.status, attempts: outcome.attempts };
        }
        case 'failed':
          // A 4xx refuses the file; a 5xx given up after retries may still have created an import.
          if (outcome.status !== undefined && outcome.status < 500)
            return { kind: 'refused', status: outcome.status, message: outcome.message };
          return { kind: 'unknown', message: `${outcome.message}; the upload may have created an import` };
        case 'unknown':
          // The transport's advice (check the account, resume --resend-unknown) is for one row; an
          // upload's rows are settled by uploading them again, which the upsert makes safe.
          return {
            kind: 'unknown',
            message: `${outcome.message.split('; ')[0]}; the upload may have created an import`,
          };
        case 'not_sent':
          return { kind: 'not_sent', message: outcome.message, mayHaveApplied: outcome.mayHaveApplied };
      }
    },

    async waitForImport(importId) {
      const started = now();
      const path = `import/status/?import_id=${encodeURIComponent(importId)}`;
      let last: ImportStatusReport | undefined;
      let polls = 0;
      for (let round = 0; ; round++) {
        const elapsed = now() - started;
        if (elapsed >= timeoutMs)
          return { kind: 'timeout', message: timeoutMessage(importId, timeoutMs, last), last, polls };
        try {
          await sleep(Math.min(delays[Math.min(round, delays.length - 1)]!, timeoutMs - elapsed), signal);
        } catch (error) {
          if (signal?.aborted)
            return { kind: 'stopped', message: `stopped while waiting for import ${importId}`, polls };
          throw error;
        }
        if (signal?.aborted) return { kind: 'stopped', message: `stopped while waiting for import ${importId}`, polls };
        polls++;
        const outcome = await transport.send({ method: 'GET', path, idempotent: true });
        if (outcome.kind === 'not_sent')
          return {
            kind: 'stopped',
            message: `stopped while waiting for import ${importId}: ${outcome.message}`,
            polls,
          };
        if (outcome.kind === 'ok') {
          const report = parseImportStatus(outcome.body, importId);
          // An answer that is not a status object is read as "not yet": the timeout bounds it.
          if (report !== undefined) {
            last = report;
            if (report.state !== 'running') return { kind: 'ended', report, polls };
          }
        } else if (outcome.status !== undefined && outcome.status < 500) {
          return {
            kind: 'lost',
            message: `import ${importId}: the status call was refused: ${outcome.message}`,
            polls,
          };
        }
        // A 5xx or a network failure given up by the transport: the import runs on; ask again later.
      }
    },
  };
}

function uploadPath(request: UploadRequest): string {
  const separator = request.separator ?? 'comma';
  return `${request.kind}/import/${separator === 'comma' ? '' : `?separator=${separator}`}`;
}

function uploadForm(request: UploadRequest): FormData {
  const form = new FormData();
  form.set('input_file', request.file, request.fileName ?? 'chunk.csv');
  if (request.columnMapping !== undefined && Object.keys(request.columnMapping).length > 0)
    form.set('column_mapping', JSON.stringify(request.columnMapping));
  if (request.kind === 'users') {
    if (request.tags !== undefined && request.tags.length > 0) form.set('tags', names('tags', request.tags));
    if (request.lists !== undefined && request.lists.length > 0) form.set('lists', names('lists', request.lists));
    if (request.triggerAutomations !== undefined)
      form.set('trigger_automations', request.triggerAutomations ? 'true' : 'false');
  }
  return form;
}

/** The form's comma-separated names; a comma inside a name would split it, so it is a caller's bug. */
function names(field: string, list: readonly string[]): string {
  const bad = list.find((n) => n.includes(','));
  if (bad !== undefined) throw new TypeError(`${field}: a name cannot contain a comma: ${JSON.stringify(bad)}`);
  return list.join(',');
}

function timeoutMessage(importId: string, timeoutMs: number, last: ImportStatusReport | undefined): string {
  const minutes = Math.round(timeoutMs / 60_000);
  const where =
    last === undefined
      ? 'no status read'
      : `last status "${last.status}"${last.succeeded !== undefined && last.totalCount !== undefined ? `, ${(last.succeeded ?? 0) + (last.failed ?? 0)} of ${last.totalCount} rows done` : ''}`;
  return `import ${importId} did not end within ${minutes >= 1 ? `${minutes} min` : `${timeoutMs} ms`} (${where}); its rows are unknown`;
}
