/**
 * The local API sandbox: `startSandbox` and what its callers read.
 *
 * The sandbox plays the service, so it keeps its own checks apart from the client's on purpose:
 * it validates, rounds and words its answers with its own code (never `src/resources/` or
 * `src/mapping/`), and a mistake in the client's reading of the API cannot hide behind the same
 * mistake here. It imports only `src/errors.ts` (rule `sandbox-apart` in .dependency-cruiser.cjs).
 * The rules it plays are in docs/api-contract.md; docs/conformance.md maps each to its test.
 */
export { startSandbox, type Sandbox } from './server.js';
export type { SandboxOptions } from './options.js';
export { mulberry32 } from './faults.js';
export type * from './records.js';
export { PRODUCT_EVENT_TYPES } from './routes/product-events.js';
