/**
 * How one API request is decided, in this order (each step answers alone when it refuses):
 *
 * 1. the path: not an endpoint (after percent-decoding, as the framework's URL table matches) →
 *    404 `Not found.`, before auth, as the framework resolves URLs before any view runs;
 * 2. auth (docs/api-contract.md R-AUTH-3) → 401;
 * 3. the rate limit (§8) → 429 with `retry-after`; only authenticated requests are counted;
 * 4. the method → 405;
 * 5. the body: not JSON by Content-Type → 415, malformed JSON → 400 `JSON parse error - …`;
 * 6. faults (`--fail-rate`, `--drop-rate`; `runUnderFault`, as for bulk uploads): only here, so a 401,
 *    429 or 404 is never turned into a 500 or a dropped connection: the decisions a client must get
 *    right stay exact;
 * 7. the endpoint, which validates and writes.
 *
 * Latency (`--latency-ms`, `--jitter-ms`) delays every API answer, refusals included; the server
 * waits it out after the decision, so the write (if any) happens when the request arrives.
 * Deciding is synchronous: no request can interleave with another's validation and write.
 */
import { bodyDepth } from './body-depth.js';
import { authenticate } from './api-key.js';
import { detail, jsonParseError, methodNotAllowed, NOT_FOUND, unsupportedMediaType } from './errors.js';
import { runUnderFault, SERVER_ERROR_ANSWER, type Fault, type FaultDice, type FaultSettings } from './faults.js';
import { throttledMessage, type RateWindow } from './rate-window.js';
import { ROUTES, type Method, type Route } from './routes/index.js';
import type { SandboxState } from './state.js';

export interface ApiRequestIn {
  readonly method: string;
  /** The path after the API prefix, as received (still percent-encoded), without the query. */
  readonly rawPath: string;
  /** The query string without `?`. */
  readonly search: string;
  readonly authorization: string | undefined;
  readonly contentType: string | undefined;
  readonly bodyText: string;
  /** `http://host:port` as the client addressed the sandbox. */
  readonly origin: string;
  /** When the request arrived (ms): the rate window counts this time, the log shows it. */
  readonly arrived: number;
}

export interface ApiDecision {
  readonly status: number;
  /** The serialized answer (JSON, or the HTML page of a 500). */
  readonly payload: string;
  readonly contentType: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly applied: boolean;
  readonly fault: Fault | null;
  /** The body as the log records it: parsed JSON, or null. */
  readonly loggedBody: unknown;
  /** How long to wait before answering (or dropping). */
  readonly delayMs: number;
}

export interface ApiDeps {
  readonly state: SandboxState;
  /** The API key as bytes, for the constant-time comparison. */
  readonly apiKey: Buffer;
  /** The rate window's key for requests that carry the API key (one key, one window). */
  readonly rateKey: string;
  readonly rateWindow: RateWindow;
  readonly dice: FaultDice;
  readonly settings: () => FaultSettings;
}

const JSON_TYPE = 'application/json';
/** Nesting a request body may have: a 400 beyond it, like any body the parser cannot take. */
const MAX_BODY_DEPTH = 256;
const METHODS = new Set<string>(['GET', 'POST', 'PUT', 'PATCH']);

export function decideApiRequest(req: ApiRequestIn, deps: ApiDeps): ApiDecision {
  const settings = deps.settings();
  // Drawn for every request, refusals included, so the draws stay aligned with the request order.
  const delayMs = deps.dice.delay(settings);
  let parsed: { ok: true; value: unknown } | { ok: false; reason: string } | undefined;
  if (req.bodyText.trim() !== '') {
    if (bodyDepth(req.bodyText, MAX_BODY_DEPTH) > MAX_BODY_DEPTH) {
      // Refused before parsing: the request log and the state dump would recurse through it.
      parsed = { ok: false, reason: `nesting deeper than ${MAX_BODY_DEPTH} levels` };
    } else {
      try {
        parsed = { ok: true, value: JSON.parse(req.bodyText) as unknown };
      } catch (error) {
        parsed = { ok: false, reason: (error as Error).message };
      }
    }
  }
  const loggedBody = parsed?.ok ? parsed.value : null;
  const reply = (
    status: number,
    body: unknown,
    headers: Record<string, string> = {},
    applied = false,
    fault: Fault | null = null,
  ): ApiDecision => ({
    status,
    payload: JSON.stringify(body),
    contentType: JSON_TYPE,
    headers,
    applied,
    fault,
    loggedBody,
    delayMs,
  });

  // 1. The endpoint, on the decoded path.
  let path: string;
  try {
    path = decodeURIComponent(req.rawPath);
  } catch {
    return reply(404, detail(NOT_FOUND));
  }
  let route: Route | undefined;
  let params: string[] = [];
  for (const candidate of ROUTES) {
    const m = candidate.pattern.exec(path);
    if (m !== null) {
      route = candidate;
      params = m.slice(1);
      break;
    }
  }
  if (route === undefined) return reply(404, detail(NOT_FOUND));

  // 2. Auth (R-AUTH-3).
  const authError = authenticate(req.authorization, deps.apiKey);
  if (authError !== undefined) return reply(401, detail(authError), { 'www-authenticate': 'Token' });

  // 3. The rate limit (R-RATE-2): header name lowercase, whole seconds.
  const taken = deps.rateWindow.take(deps.rateKey, req.arrived);
  if (!taken.allowed)
    return reply(429, detail(throttledMessage(taken.retryAfter)), { 'retry-after': String(taken.retryAfter) });

  // 4. The method.
  const endpoint = METHODS.has(req.method) ? route.methods[req.method as Method] : undefined;
  if (endpoint === undefined)
    return reply(405, detail(methodNotAllowed(req.method)), { allow: Object.keys(route.methods).join(', ') });

  // 5. The body; a GET never reads it. A body that cannot be read loses to a 404 of the entity the path names.
  let body: unknown = {};
  if (req.method !== 'GET' && parsed !== undefined) {
    const mediaType = (req.contentType ?? '').split(';')[0]!.trim().toLowerCase();
    const missing = () => route.pathEntityMissing?.(deps.state, params);
    const refused = (status: number, message: string) => {
      const first = missing();
      return first === undefined ? reply(status, detail(message)) : reply(first.status, first.body);
    };
    if (mediaType !== JSON_TYPE && !/^application\/[\w.+-]+\+json$/.test(mediaType))
      return refused(415, unsupportedMediaType(req.contentType ?? ''));
    if (!parsed.ok) return refused(400, jsonParseError(parsed.reason));
    body = parsed.value;
  }

  // 6. Faults, then 7. the endpoint.
  const run = runUnderFault(deps.dice, settings, () =>
    endpoint({
      state: deps.state,
      params,
      body,
      query: new URLSearchParams(req.search),
      origin: req.origin,
    }),
  );
  if (run.serverError)
    return { ...SERVER_ERROR_ANSWER, applied: run.result?.applied ?? false, fault: run.fault, loggedBody, delayMs };
  return reply(run.result.status, run.result.body, {}, run.result.applied, run.fault);
}
