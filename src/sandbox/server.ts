/**
 * `startSandbox`: the local API sandbox, a real HTTP server (node:http) that implements the API rules of docs/api-contract.md
 * under `/api/public/`, for end-to-end tests, benchmarks and the demo. Requests are decided
 * synchronously when their body has arrived (`api-handler.ts`); only the answer waits for the
 * latency. Keep-alive, no sync I/O on the request path, the request log batched to its file.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { decideAdminRequest } from './admin.js';
import { decideApiRequest, type ApiDeps } from './api-handler.js';
import { checkApiKey, generateApiKey } from './api-key.js';
import { isoTime } from './datetime.js';
import { detail, NOT_FOUND } from './errors.js';
import { FaultDice, type FaultSettings } from './faults.js';
import { loadFixtures, resolveFixtures } from './fixtures.js';
import { importFaultDice } from './bulk/import-faults.js';
import { runImport } from './bulk/run-import.js';
import { decideUpload, MAX_UPLOAD_BYTES, uploadKind, type UploadDeps } from './bulk/upload.js';
import type { ImportKind } from './bulk/import-store.js';
import {
  applyFaultPatch,
  DEFAULT_BULK_FAIL_RATE,
  DEFAULT_BULK_ROWS_PER_S,
  DEFAULT_FAULTS,
  DEFAULT_HOST,
  DEFAULT_SEED,
  type FaultPatch,
  type SandboxOptions,
} from './options.js';
import { RateWindow } from './rate-window.js';
import { RequestLog, type RequestLogEntry } from './request-log.js';
import { SandboxState } from './state.js';

/** The API prefix (R-BASE-1: `https://<account>.<host>/api/public/`). */
export const API_PREFIX = '/api/public/';
/** Sandbox-only admin endpoints, outside the API prefix. */
export const ADMIN_PREFIX = '/__sandbox/';
/** Bodies above this size are refused with 413 (R-LIMIT-1: payload limits are not published). */
export const MAX_BODY_BYTES = 16 * 1024 * 1024;

export interface Sandbox {
  /** The base URL to give the client: `http://127.0.0.1:<port>/api/public/`. */
  readonly url: string;
  /** `http://127.0.0.1:<port>/__sandbox/`. */
  readonly adminUrl: string;
  readonly port: number;
  /** The key clients must send as `Authorization: Token <key>`. */
  readonly apiKey: string;
  /** The records; `state.deals()` and friends answer copies. */
  readonly state: SandboxState;
  /** The request log, live: entries are appended as requests are decided; `reset()` empties it in place. */
  readonly requests: readonly RequestLogEntry[];
  /** The fault settings in force. */
  faults(): FaultSettings;
  /** Switches fault settings while running; throws a RangeError on a bad value. */
  setFaults(patch: FaultPatch): FaultSettings;
  /** Records back to the fixtures, request log and rate windows emptied. */
  reset(): void;
  /** Stops listening, lets answers in flight go out, closes every connection and the log file. */
  close(): Promise<void>;
}

export async function startSandbox(options: SandboxOptions = {}): Promise<Sandbox> {
  const now = options.now ?? Date.now;
  const sleep = options.sleep ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)));
  const apiKey = options.apiKey ?? generateApiKey();
  checkApiKey(apiKey);
  const initial = applyFaultPatch(DEFAULT_FAULTS, {
    ...(options.rate !== undefined && { rate: options.rate }),
    ...(options.latencyMs !== undefined && { latencyMs: options.latencyMs }),
    ...(options.jitterMs !== undefined && { jitterMs: options.jitterMs }),
    ...(options.failRate !== undefined && { failRate: options.failRate }),
    ...(options.dropRate !== undefined && { dropRate: options.dropRate }),
  });
  if ('problems' in initial) throw new RangeError(`sandbox options: ${initial.problems.join('; ')}`);
  let settings = initial.settings;
  const bulkRowsPerS = options.bulkRowsPerS ?? DEFAULT_BULK_ROWS_PER_S;
  const bulkFailRate = options.bulkFailRate ?? DEFAULT_BULK_FAIL_RATE;
  if (!(Number.isFinite(bulkRowsPerS) && bulkRowsPerS >= 0))
    throw new RangeError(
      `sandbox options: bulkRowsPerS: must be a number of rows per second, 0 or more (got ${bulkRowsPerS})`,
    );
  if (!(bulkFailRate >= 0 && bulkFailRate <= 1))
    throw new RangeError(`sandbox options: bulkFailRate: must be between 0 and 1 (got ${bulkFailRate})`);
  const fixtures =
    typeof options.fixtures === 'string'
      ? await loadFixtures(options.fixtures)
      : resolveFixtures(options.fixtures ?? {}, 'fixtures');
  const state = new SandboxState(fixtures, now);
  const rateWindow = new RateWindow(settings.rate);
  const log = await RequestLog.open(options.log);
  const host = options.host ?? DEFAULT_HOST;

  const setSettings = (next: FaultSettings) => {
    rateWindow.setRate(next.rate);
    settings = next;
  };
  const reset = () => {
    state.reset();
    log.clear();
    rateWindow.reset();
  };
  const deps: ApiDeps = {
    state,
    apiKey: Buffer.from(apiKey, 'utf8'),
    rateKey: 'api-key',
    rateWindow,
    dice: new FaultDice(options.seed ?? DEFAULT_SEED),
    settings: () => settings,
  };

  // Requests between arrival and their answer (or drop): close() lets them finish.
  let inFlight = 0;
  let closing = false;
  const uploadDeps: UploadDeps = {
    ...deps,
    maxBytes: options.bulkMaxBytes ?? MAX_UPLOAD_BYTES,
    now,
    importFault: importFaultDice(options.seed ?? DEFAULT_SEED, () => bulkFailRate),
    start: (record, chunks, header, failAfter) => {
      // Background work: an import outlives its upload request; close() stops it at its next batch.
      void runImport(record, chunks, header, failAfter, {
        state,
        now,
        sleep,
        log: (entry) => log.add(entry),
        rowsPerS: () => bulkRowsPerS,
        stopped: () => closing,
      });
    },
  };
  const idleWaiters: (() => void)[] = [];
  const done = () => {
    inFlight--;
    if (inFlight === 0) for (const wake of idleWaiters.splice(0)) wake();
  };

  const server = createServer({ noDelay: true, keepAlive: true }, (req, res) => {
    inFlight++;
    // 'close' comes once per response: answered, dropped, or the client went away mid-way.
    res.once('close', done);
    const target = req.url ?? '/';
    const q = target.indexOf('?');
    const pathname = q < 0 ? target : target.slice(0, q);
    // A bulk CSV upload is read as a stream (up to 200 MB), never as one JSON text.
    const bulk = bulkUploadKind(pathname);
    if (bulk !== undefined) return void answerUpload(req, res, bulk, q < 0 ? '' : target.slice(q + 1));
    readBody(req, (text, tooLarge) => {
      if (tooLarge) return send(res, 413, JSON.stringify(detail('Request body too large.')), 'application/json', {});
      if (pathname.startsWith(API_PREFIX)) {
        void answerApi(req, res, pathname, q < 0 ? '' : target.slice(q + 1), text);
      } else if (pathname.startsWith(ADMIN_PREFIX)) {
        const answer = decideAdminRequest(req.method ?? 'GET', pathname.slice(ADMIN_PREFIX.length), text, {
          snapshot: () => state.snapshot(),
          requests: () => log.entries,
          reset,
          resetLog: () => log.clear(),
          faults: () => settings,
          setFaults: setSettings,
        });
        send(res, answer.status, JSON.stringify(answer.body), 'application/json', answer.headers ?? {});
      } else {
        send(res, 404, JSON.stringify(detail(NOT_FOUND)), 'application/json', {});
      }
    });
  });

  async function answerApi(
    req: IncomingMessage,
    res: ServerResponse,
    pathname: string,
    search: string,
    bodyText: string,
  ): Promise<void> {
    const arrived = now();
    const decision = decideApiRequest(
      {
        method: req.method ?? 'GET',
        rawPath: pathname.slice(API_PREFIX.length),
        search,
        authorization: req.headers.authorization,
        contentType: req.headers['content-type'],
        bodyText,
        origin: originOf(req, host, port),
        arrived,
      },
      deps,
    );
    const dropped = decision.fault === 'drop';
    log.add({
      time: isoTime(arrived),
      method: req.method ?? 'GET',
      path: req.url ?? '/',
      status: dropped ? null : decision.status,
      applied: decision.applied,
      body: decision.loggedBody,
      fault: decision.fault,
    });
    try {
      if (decision.delayMs > 0) await sleep(decision.delayMs);
    } finally {
      if (dropped) {
        // --drop-rate: the write was applied, the client gets no answer at all.
        res.socket?.destroy();
      } else {
        send(res, decision.status, decision.payload, decision.contentType, decision.headers);
      }
    }
  }

  async function answerUpload(
    req: IncomingMessage,
    res: ServerResponse,
    kind: ImportKind,
    search: string,
  ): Promise<void> {
    const arrived = now();
    const decision = await decideUpload(req, kind, new URLSearchParams(search), uploadDeps);
    const dropped = decision.fault === 'drop';
    log.add({
      time: isoTime(arrived),
      method: req.method ?? 'POST',
      path: req.url ?? '/',
      status: dropped ? null : decision.status,
      applied: decision.applied,
      body: decision.loggedBody,
      fault: decision.fault,
      ...(decision.importId !== undefined && { importId: decision.importId }),
    });
    try {
      if (decision.delayMs > 0) await sleep(decision.delayMs);
    } finally {
      if (dropped) res.socket?.destroy();
      else send(res, decision.status, decision.payload, decision.contentType, decision.headers);
    }
  }

  function send(
    res: ServerResponse,
    status: number,
    payload: string,
    contentType: string,
    headers: Readonly<Record<string, string>>,
  ): void {
    if (res.destroyed) return;
    res.writeHead(status, {
      'content-type': contentType,
      'content-length': String(Buffer.byteLength(payload)),
      ...(closing && { connection: 'close' }),
      ...headers,
    });
    res.end(payload);
  }

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const port = (server.address() as AddressInfo).port;
  const urlHost = host === '0.0.0.0' || host === '::' ? '127.0.0.1' : host.includes(':') ? `[${host}]` : host;

  let closed: Promise<void> | undefined;
  const close = (): Promise<void> => {
    closed ??= (async () => {
      closing = true;
      const serverClosed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeIdleConnections();
      if (inFlight > 0) await new Promise<void>((resolve) => idleWaiters.push(resolve));
      server.closeAllConnections();
      await serverClosed;
      await log.close();
    })();
    return closed;
  };

  return {
    url: `http://${urlHost}:${port}${API_PREFIX}`,
    adminUrl: `http://${urlHost}:${port}${ADMIN_PREFIX}`,
    port,
    apiKey,
    state,
    requests: log.entries,
    faults: () => settings,
    setFaults: (patch) => {
      const result = applyFaultPatch(settings, patch);
      if ('problems' in result) throw new RangeError(`sandbox faults: ${result.problems.join('; ')}`);
      setSettings(result.settings);
      return settings;
    },
    reset,
    close,
  };
}

/**
 * The whole body as text; `tooLarge` past MAX_BODY_BYTES (the rest is read and dropped, so
 * keep-alive survives). A client that goes away mid-body never gets here: its response closes.
 */
function readBody(req: IncomingMessage, then: (text: string, tooLarge: boolean) => void): void {
  const chunks: Buffer[] = [];
  let size = 0;
  req.on('error', () => undefined);
  req.on('data', (chunk: Buffer) => {
    size += chunk.length;
    if (size <= MAX_BODY_BYTES) chunks.push(chunk);
  });
  req.on('end', () => {
    const text =
      chunks.length === 0
        ? ''
        : chunks.length === 1
          ? chunks[0]!.toString('utf8')
          : Buffer.concat(chunks).toString('utf8');
    then(text, size > MAX_BODY_BYTES);
  });
}

/** The import kind of an upload path under the API prefix (decoded as the route table decodes), or undefined. */
function bulkUploadKind(pathname: string): ImportKind | undefined {
  if (!pathname.startsWith(API_PREFIX)) return undefined;
  try {
    return uploadKind(decodeURIComponent(pathname.slice(API_PREFIX.length)));
  } catch {
    return undefined;
  }
}

/** `http://<Host header>`, so pagination links point where the client connected; the sandbox's own address when the header is odd. */
function originOf(req: IncomingMessage, host: string, port: number): string {
  const header = req.headers.host;
  if (header !== undefined && /^[A-Za-z0-9.-]+(?::\d{1,5})?$|^\[[0-9A-Fa-f:.]+\](?::\d{1,5})?$/.test(header))
    return `http://${header}`;
  return `http://${host.includes(':') ? `[${host}]` : host}:${port}`;
}
