/** Only `transport/` knows about HTTP; the pipeline talks to `Transport`. */
export { resolveBaseUrl, isLoopback } from './base-url.js';
export { createTransport } from './create-transport.js';
export { errorMessage, renderErrorBody } from './error-body.js';
export { listAll } from './list-all.js';
export { classifyNetworkError, type NetworkFailure, type NetworkFailureKind } from './network-errors.js';
export { RetryBudget, type RetryBudgetOptions } from './retry-budget.js';
export { DEFAULT_RETRY_POLICY, type RetryPolicy } from './retry-policy.js';
export { inDoubtModeOf, type InDoubtMode } from './in-doubt.js';
export { TokenBucket } from './token-bucket.js';
export type {
  ApiRequest,
  SendOutcome,
  Transport,
  TransportEvent,
  TransportOptions,
  TransportStats,
  TransportTimeouts,
} from './types.js';
