/**
 * What an endpoint sees and answers. Endpoints are synchronous and pure apart from the state
 * they change: auth, the rate limit, body parsing, faults and latency happen around them
 * (see `../api-handler.ts`).
 */
import type { SandboxState } from '../state.js';

export type Method = 'GET' | 'POST' | 'PUT' | 'PATCH';

export interface EndpointRequest {
  readonly state: SandboxState;
  /** Path parameters, percent-decoded. */
  readonly params: readonly string[];
  /** The parsed JSON body; `{}` when the request had none (the framework reads an empty body as empty data). */
  readonly body: unknown;
  readonly query: URLSearchParams;
  /** `http://host:port` as the client addressed the sandbox: pagination links are full URLs (docs/api-contract.md R-EVENT-6). */
  readonly origin: string;
}

export interface EndpointAnswer {
  readonly status: number;
  readonly body: unknown;
  /** Whether the request changed the state (the request log's `applied`). */
  readonly applied: boolean;
}

export type Endpoint = (request: EndpointRequest) => EndpointAnswer;

/** One path of the API and the methods it takes. */
export interface Route {
  /** The path as the API reference writes it, for messages and docs: `deals/:id/`. */
  readonly name: string;
  /** Matched against the percent-decoded path after the API prefix; groups are the parameters. */
  readonly pattern: RegExp;
  readonly methods: Partial<Record<Method, Endpoint>>;
  /**
   * The 404 of an entity the path names (a product, a user) when it does not exist. The
   * framework reads a body only when the view asks for it, after this lookup, so the 404 comes
   * first even for a body that is not JSON (docs/api-contract.md R-PEVT-5, R-EVENT-2).
   */
  readonly pathEntityMissing?: (state: SandboxState, params: readonly string[]) => EndpointAnswer | undefined;
}

export const answer = (status: number, body: unknown, applied = false): EndpointAnswer => ({ status, body, applied });
