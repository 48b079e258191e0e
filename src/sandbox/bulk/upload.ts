/**
 * The bulk CSV upload endpoints, `POST /users/import/`, `/products/import/`, `/deals/import/`
 * (docs/api-contract.md R-BULK-1 … R-BULK-6). The body is `multipart/form-data`, read as a
 * stream with busboy: the file is kept once (its chunks, up to 200 MB) while its records are
 * counted and its header read, and the form fields are checked once the body has ended. The
 * order of checks is the other endpoints' (path, auth, rate limit, method, body, faults), so a
 * 401, 429 or 405 stays exact; then the import is created, answered with its id, and run in the
 * background (`run-import.ts`).
 */
import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import busboy from 'busboy';
import { authenticate } from '../api-key.js';
import { detail, methodNotAllowed, unsupportedMediaType, type FieldErrorMap } from '../errors.js';
import { runUnderFault, SERVER_ERROR_ANSWER, type Fault, type FaultDice, type FaultSettings } from '../faults.js';
import { isRecord, MESSAGES, notADict, notAValidChoice, readBoolean } from '../fields.js';
import { throttledMessage, type RateWindow } from '../rate-window.js';
import type { SandboxState } from '../state.js';
import { csvParser, SEPARATORS, type SeparatorName } from './csv-records.js';
import type { ImportKind, ImportRecord, ImportRequestOptions } from './import-store.js';

/** docs/api-contract.md R-BULK-1: a CSV file, UTF-8, at most 200 MB. */
export const MAX_UPLOAD_BYTES = 200 * 1024 * 1024;

/** The kind of import a decoded API path uploads to, or undefined. */
export function uploadKind(path: string): ImportKind | undefined {
  const m = /^(users|products|deals)\/import\/$/.exec(path);
  return m === null ? undefined : (m[1] as ImportKind);
}

export interface UploadDeps {
  readonly state: SandboxState;
  readonly apiKey: Buffer;
  readonly rateKey: string;
  readonly rateWindow: RateWindow;
  readonly dice: FaultDice;
  readonly settings: () => FaultSettings;
  /** Largest file accepted, in bytes. Default `MAX_UPLOAD_BYTES`. */
  readonly maxBytes: number;
  readonly now: () => number;
  /** Draws the whole-import fault: the number of rows after which the import fails, or undefined. */
  readonly importFault: (rows: number) => number | undefined;
  /** Starts the accepted import in the background. */
  readonly start: (
    record: ImportRecord,
    chunks: Buffer[],
    header: readonly string[],
    failAfter: number | undefined,
  ) => void;
}

/** The decision on one upload, as the server answers and logs it. */
export interface UploadDecision {
  readonly status: number;
  readonly payload: string;
  readonly contentType: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly applied: boolean;
  readonly fault: Fault | null;
  /** What the log shows of the request: the form fields and the file's size and rows, never its content. */
  readonly loggedBody: unknown;
  readonly importId: string | undefined;
  readonly delayMs: number;
}

interface Received {
  file?: {
    readonly chunks: Buffer[];
    bytes: number;
    rows: number;
    header: string[] | undefined;
    tooLarge: boolean;
    problem: string | undefined;
  };
  readonly fields: Record<string, string>;
  multipartError?: string;
}

/** Reads and decides one upload; the request body is always read to its end, so keep-alive survives a refusal. */
export async function decideUpload(
  req: IncomingMessage,
  kind: ImportKind,
  query: URLSearchParams,
  deps: UploadDeps,
): Promise<UploadDecision> {
  const settings = deps.settings();
  const delayMs = deps.dice.delay(settings);
  let loggedBody: unknown = null;
  const reply = (
    status: number,
    body: unknown,
    headers: Record<string, string> = {},
    applied = false,
    fault: Fault | null = null,
    importId?: string,
  ): UploadDecision => ({
    status,
    payload: JSON.stringify(body),
    contentType: 'application/json',
    headers,
    applied,
    fault,
    loggedBody,
    importId,
    delayMs,
  });
  const refuse = async (status: number, body: unknown, headers: Record<string, string> = {}) => {
    await drain(req);
    return reply(status, body, headers);
  };

  const authError = authenticate(req.headers.authorization, deps.apiKey);
  if (authError !== undefined) return refuse(401, detail(authError), { 'www-authenticate': 'Token' });
  const taken = deps.rateWindow.take(deps.rateKey, deps.now());
  if (!taken.allowed)
    return refuse(429, detail(throttledMessage(taken.retryAfter)), { 'retry-after': String(taken.retryAfter) });
  if (req.method !== 'POST') return refuse(405, detail(methodNotAllowed(req.method ?? '')), { allow: 'POST' });
  const contentType = req.headers['content-type'] ?? '';
  if (!/^multipart\/form-data\s*;/i.test(contentType)) return refuse(415, detail(unsupportedMediaType(contentType)));
  const separatorText = query.get('separator') ?? 'comma';
  if (!Object.hasOwn(SEPARATORS, separatorText)) return refuse(400, { separator: [notAValidChoice(separatorText)] });
  const separator = separatorText as SeparatorName;

  const received = await receive(req, separator, deps.maxBytes);
  const file = received.file;
  loggedBody = {
    ...received.fields,
    ...(file !== undefined && { input_file: { bytes: file.bytes, rows: file.rows } }),
  };
  if (received.multipartError !== undefined)
    return reply(400, detail(`Multipart form parse error - ${received.multipartError}`));
  if (file?.tooLarge) return reply(413, detail(`File too large: the limit is ${deps.maxBytes} bytes (200 MB).`));

  const errors: FieldErrorMap = {};
  if (file === undefined) errors.input_file = ['No file was submitted.'];
  else if (file.problem !== undefined) errors.input_file = [file.problem];
  else if (file.header === undefined) errors.input_file = ['The submitted file is empty.'];
  const options = readOptions(kind, received.fields, query, errors);
  const header = file?.header?.map((name) => options?.columnMapping[name] ?? name);
  const twice = header?.find((name, i) => name !== '' && header.indexOf(name) !== i);
  if (twice !== undefined)
    errors.input_file = [`The column "${twice}" appears twice in the header (after column_mapping).`];
  if (Object.keys(errors).length > 0 || file === undefined || header === undefined || options === undefined)
    return reply(400, errors);

  const run = runUnderFault(deps.dice, settings, () => {
    const record: ImportRecord = {
      id: randomUUID(),
      kind,
      status: 'running',
      total_count: file.rows,
      succeeded: 0,
      failed: 0,
      started_at: deps.state.timestamp(),
      finished_at: null,
      author: 'api',
      rows_with_errors: [],
      options: { ...options, separator, bytes: file.bytes, rows: file.rows },
    };
    deps.state.imports.add(record);
    deps.start(record, file.chunks, header, deps.importFault(file.rows));
    return record;
  });
  if (run.serverError) {
    const importId = run.result?.id;
    return { ...SERVER_ERROR_ANSWER, applied: importId !== undefined, fault: run.fault, loggedBody, importId, delayMs };
  }
  return reply(200, { success: true, data: { import_id: run.result.id } }, {}, true, run.fault, run.result.id);
}

/** The form fields besides the file, checked; problems go into `errors`. */
function readOptions(
  kind: ImportKind,
  fields: Readonly<Record<string, string>>,
  query: URLSearchParams,
  errors: FieldErrorMap,
): Omit<ImportRequestOptions, 'separator' | 'bytes' | 'rows'> | undefined {
  let columnMapping: Record<string, string> = {};
  if (fields.column_mapping !== undefined && fields.column_mapping.trim() !== '') {
    let parsed: unknown;
    try {
      parsed = JSON.parse(fields.column_mapping);
    } catch {
      parsed = undefined;
      errors.column_mapping = ['Value must be valid JSON.'];
    }
    if (parsed !== undefined) {
      if (!isRecord(parsed)) errors.column_mapping = [notADict(parsed)];
      else if (Object.values(parsed).some((v) => typeof v !== 'string')) errors.column_mapping = [MESSAGES.string];
      else
        columnMapping = Object.fromEntries(Object.entries(parsed).filter(([k]) => k !== '__proto__')) as Record<
          string,
          string
        >;
    }
  }
  const names = (text: string | undefined) =>
    (text ?? '')
      .split(',')
      .map((s) => s.trim())
      .filter((s) => s !== '');
  let triggerAutomations = false;
  const trigger = query.get('trigger_automations') ?? fields.trigger_automations;
  if (kind === 'users' && trigger !== undefined && trigger !== null) {
    const read = readBoolean(trigger);
    if (read.ok) triggerAutomations = read.value;
    else errors.trigger_automations = [read.error];
  }
  if (Object.keys(errors).length > 0) return undefined;
  // tags, lists and trigger_automations are users' options; the other endpoints ignore them.
  return kind === 'users'
    ? { columnMapping, tags: names(fields.tags), lists: names(fields.lists), triggerAutomations }
    : { columnMapping, tags: [], lists: [], triggerAutomations: false };
}

/**
 * The multipart body: `input_file` kept as chunks (up to `maxBytes`), checked as UTF-8 and
 * parsed as it arrives to count its records and read its header; the other fields as text.
 */
function receive(req: IncomingMessage, separator: SeparatorName, maxBytes: number): Promise<Received> {
  return new Promise((resolve) => {
    const received: Received = { fields: {} };
    let pending = 0; // file parsers still running
    let ended = false;
    const finish = () => {
      if (ended && pending === 0) resolve(received);
    };
    let parser: ReturnType<typeof busboy>;
    try {
      parser = busboy({ headers: req.headers, limits: { fileSize: maxBytes, files: 1, fieldSize: 1024 * 1024 } });
    } catch (error) {
      received.multipartError = (error as Error).message;
      void drain(req).then(() => resolve(received));
      return;
    }
    parser.on('field', (name, value) => {
      if (name !== '__proto__') received.fields[name] = value;
    });
    parser.on('file', (name, stream) => {
      if (name !== 'input_file' || received.file !== undefined) {
        stream.resume();
        return;
      }
      const file = {
        chunks: [] as Buffer[],
        bytes: 0,
        rows: 0,
        header: undefined as string[] | undefined,
        tooLarge: false,
        problem: undefined as string | undefined,
      };
      received.file = file;
      pending++;
      const utf8 = new TextDecoder('utf-8', { fatal: true });
      const csv = csvParser(separator);
      csv.on('data', (record: string[]) => {
        if (file.header === undefined) file.header = record;
        else file.rows++;
      });
      csv.on('error', (error: Error) => {
        file.problem ??= `The file is not valid CSV: ${error.message}`;
        stream.resume();
      });
      csv.on('end', () => {
        pending--;
        finish();
      });
      stream.on('limit', () => {
        file.tooLarge = true;
        file.chunks.length = 0;
      });
      stream.on('data', (chunk: Buffer) => {
        if (file.tooLarge || file.problem !== undefined) return;
        file.bytes += chunk.length;
        try {
          utf8.decode(chunk, { stream: true });
        } catch {
          file.problem = 'The file is not valid UTF-8.';
          return;
        }
        file.chunks.push(chunk);
        csv.write(chunk);
      });
      // A body cut short: busboy fails the file stream too ('end' never comes), and the parser must end.
      stream.on('error', (error: Error) => {
        received.multipartError ??= error.message;
        if (!csv.destroyed && !csv.writableEnded) csv.end();
      });
      stream.on('end', () => {
        if (file.problem === undefined && !file.tooLarge) {
          try {
            utf8.decode();
          } catch {
            file.problem = 'The file is not valid UTF-8.';
          }
        }
        if (csv.destroyed || csv.writableEnded) return;
        csv.end();
      });
      // A parser that already failed ends through 'error', not 'end'.
      csv.on('close', () => {
        if (!csv.readableEnded && pending > 0) {
          pending--;
          finish();
        }
      });
    });
    parser.on('error', (error: Error) => {
      received.multipartError ??= error.message;
      req.unpipe(parser);
      void drain(req).then(() => {
        ended = true;
        pending = 0;
        finish();
      });
    });
    parser.on('close', () => {
      ended = true;
      finish();
    });
    // The client went away mid-body: nothing more will come; answer (to no one) and let go.
    req.on('close', () => {
      if (req.complete) return;
      received.multipartError ??= 'the request body ended early';
      parser.destroy();
      ended = true;
      pending = 0;
      finish();
    });
    req.pipe(parser);
  });
}

/** Reads the rest of a request body and drops it. */
function drain(req: IncomingMessage): Promise<void> {
  if (req.readableEnded) return Promise.resolve();
  return new Promise((resolve) => {
    req.on('end', resolve);
    req.on('error', () => resolve());
    req.resume();
  });
}
