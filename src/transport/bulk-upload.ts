/**
 * Uploading one chunk file to the bulk CSV import endpoint, and what its answer means for the
 * chunk's rows. The upload is idempotent in effect (the importer is an upsert), so a lost answer
 * is resent.
 */
import { parseUploadAnswer, type ImportStatusReport } from './bulk-answers.js';
import type { RowFailure } from '../errors.js';
import type { Transport } from './types.js';

export type BulkKind = 'users' | 'products' | 'deals';
type BulkSeparator = 'comma' | 'tab' | 'semicolon';

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
  | (RowFailure<'not_sent'> & { readonly mayHaveApplied: boolean; readonly givenUp?: true });

/** Sends one chunk file as a form through the run's transport and reads what the answer means. */
export async function uploadChunk(transport: Pick<Transport, 'send'>, request: UploadRequest): Promise<UploadOutcome> {
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
      return {
        kind: 'not_sent',
        message: outcome.message,
        mayHaveApplied: outcome.mayHaveApplied,
        ...(outcome.givenUp && { givenUp: true }),
      };
  }
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
