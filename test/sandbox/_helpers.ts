import { afterEach } from 'vitest';
import { startSandbox, type Sandbox, type SandboxOptions } from '../../src/sandbox/index.js';

/** A test key: 64 characters, easy to spot if it ever leaks into a log or a message. */
export const TEST_KEY = `CANARY${'k'.repeat(52)}SECRET`;

const open: Sandbox[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((s) => s.close()));
});

export interface Answer {
  readonly status: number;
  readonly headers: Headers;
  /** Parsed JSON, or the text when the body is not JSON. */
  readonly body: any;
  readonly text: string;
}

export interface TestSandbox extends Sandbox {
  /** A request with the key and the headers of docs/api-contract.md R-BASE-3, R-BASE-4, R-AUTH-1; `init.headers` replace them. */
  call(
    method: string,
    path: string,
    body?: unknown,
    init?: { headers?: Record<string, string>; rawBody?: string },
  ): Promise<Answer>;
  admin(method: string, name: string, body?: unknown): Promise<Answer>;
}

/**
 * A sandbox on a free loopback port, closed after the test. The rate limit is off unless the
 * test sets it: the other sections' tests send bursts.
 */
export async function sandbox(options: SandboxOptions = {}): Promise<TestSandbox> {
  const s = await startSandbox({ port: 0, rate: 0, apiKey: TEST_KEY, ...options });
  open.push(s);
  return Object.assign(s, {
    call: async (
      method: string,
      path: string,
      body?: unknown,
      init: { headers?: Record<string, string>; rawBody?: string } = {},
    ) => {
      const headers: Record<string, string> = {
        Authorization: `Token ${s.apiKey}`,
        Accept: '*/*; version=2',
        ...(body !== undefined || init.rawBody !== undefined ? { 'Content-Type': 'application/json' } : {}),
        ...init.headers,
      };
      for (const [k, v] of Object.entries(headers)) if (v === '') delete headers[k];
      const res = await fetch(new URL(path, s.url), {
        method,
        headers,
        ...(init.rawBody !== undefined
          ? { body: init.rawBody }
          : body !== undefined
            ? { body: JSON.stringify(body) }
            : {}),
      });
      return read(res);
    },
    admin: async (method: string, name: string, body?: unknown) => {
      const res = await fetch(new URL(name, s.adminUrl), {
        method,
        ...(body !== undefined && { body: JSON.stringify(body), headers: { 'Content-Type': 'application/json' } }),
      });
      return read(res);
    },
  });
}

async function read(res: Response): Promise<Answer> {
  const text = await res.text();
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {
    // not JSON: keep the text
  }
  return { status: res.status, headers: res.headers, body, text };
}

/** Creates users by custom id (`POST /users/update_or_create/`) and answers their ids. */
export async function users(s: TestSandbox, ...customIds: string[]): Promise<number[]> {
  const ids: number[] = [];
  for (const custom_id of customIds) ids.push((await s.call('POST', 'users/update_or_create/', { custom_id })).body.id);
  return ids;
}

/** Creates products by custom id (`POST /products/`) and answers their ids. */
export async function products(s: TestSandbox, ...customIds: string[]): Promise<number[]> {
  const ids: number[] = [];
  for (const custom_id of customIds)
    ids.push((await s.call('POST', 'products/', { custom_id, name: custom_id })).body.id);
  return ids;
}

/** A clock tests move by hand. */
export function manualClock(start = Date.UTC(2026, 0, 5, 9, 0, 0, 123)) {
  let t = start;
  return {
    now: () => t,
    advance: (ms: number) => {
      t += ms;
    },
  };
}
