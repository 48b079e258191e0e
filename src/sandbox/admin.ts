/**
 * Sandbox-only admin endpoints under `/__sandbox/` (outside the API prefix, no key needed; the
 * sandbox listens on loopback only). Not part of the platform's API: tests, benchmarks and the demo use them
 * to look inside and to steer faults.
 *
 * - `GET /__sandbox/`: the list below.
 * - `GET /__sandbox/state`: every record (`StateSnapshot`).
 * - `GET /__sandbox/requests`: the request log.
 * - `POST /__sandbox/reset`: records back to the fixtures, request log and rate windows emptied.
 * - `POST /__sandbox/reset-log`: the request log emptied, records kept.
 * - `GET /__sandbox/faults`, `PATCH /__sandbox/faults`: read or switch `rate`, `latencyMs`,
 *   `jitterMs`, `failRate`, `dropRate` while running.
 */
import { detail, methodNotAllowed, NOT_FOUND } from './errors.js';
import type { FaultSettings } from './faults.js';
import { applyFaultPatch } from './options.js';
import type { RequestLogEntry } from './request-log.js';
import type { StateSnapshot } from './state.js';

export interface AdminDeps {
  readonly snapshot: () => StateSnapshot;
  readonly requests: () => readonly RequestLogEntry[];
  readonly reset: () => void;
  readonly resetLog: () => void;
  readonly faults: () => FaultSettings;
  readonly setFaults: (settings: FaultSettings) => void;
}

export interface AdminAnswer {
  readonly status: number;
  readonly body: unknown;
  readonly headers?: Readonly<Record<string, string>>;
}

type Handler = (body: string) => AdminAnswer;

function table(deps: AdminDeps): Record<string, Partial<Record<string, Handler>>> {
  return {
    // The address the sandbox prints: what can be asked here.
    '': {
      GET: () => ({
        status: 200,
        body: {
          endpoints: [
            'GET /__sandbox/state',
            'GET /__sandbox/requests',
            'POST /__sandbox/reset',
            'POST /__sandbox/reset-log',
            'GET /__sandbox/faults',
            'PATCH /__sandbox/faults',
          ],
        },
      }),
    },
    state: { GET: () => ({ status: 200, body: deps.snapshot() }) },
    requests: { GET: () => ({ status: 200, body: deps.requests() }) },
    reset: {
      POST: () => {
        deps.reset();
        return { status: 200, body: { reset: true } };
      },
    },
    'reset-log': {
      POST: () => {
        deps.resetLog();
        return { status: 200, body: { reset: true } };
      },
    },
    faults: {
      GET: () => ({ status: 200, body: deps.faults() }),
      PATCH: (text) => {
        let patch: unknown;
        try {
          patch = text.trim() === '' ? {} : JSON.parse(text);
        } catch (error) {
          return { status: 400, body: detail(`JSON parse error - ${(error as Error).message}`) };
        }
        const result = applyFaultPatch(deps.faults(), patch);
        if ('problems' in result) return { status: 400, body: { detail: result.problems.join('; ') } };
        deps.setFaults(result.settings);
        return { status: 200, body: result.settings };
      },
    },
  };
}

/** Answers `METHOD /__sandbox/<name>` (`name` without slashes; a trailing `/` is optional). */
export function decideAdminRequest(method: string, name: string, body: string, deps: AdminDeps): AdminAnswer {
  const routes = table(deps);
  const key = name.replace(/\/$/, '');
  const methods = Object.hasOwn(routes, key) ? routes[key] : undefined;
  if (methods === undefined) return { status: 404, body: detail(NOT_FOUND) };
  const handler = methods[method];
  if (handler === undefined)
    return { status: 405, body: detail(methodNotAllowed(method)), headers: { allow: Object.keys(methods).join(', ') } };
  return handler(body);
}
