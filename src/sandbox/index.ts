/** The local API sandbox: `startSandbox` and what its callers read. */
export { startSandbox, API_PREFIX, ADMIN_PREFIX, type Sandbox } from './server.js';
export { DEFAULT_FAULTS, DEFAULT_SEED, type FaultPatch, type SandboxOptions } from './options.js';
export { mulberry32, type Fault, type FaultSettings } from './faults.js';
export { API_KEY_LENGTH, generateApiKey } from './api-key.js';
export { DEFAULT_FIXTURES, loadFixtures, resolveFixtures, type Fixtures, type FixturesInput } from './fixtures.js';
export type { RequestLogEntry } from './request-log.js';
export type { SandboxState, StateSnapshot } from './state.js';
export type * from './records.js';
export { PRODUCT_EVENT_TYPES } from './routes/product-events.js';
export { EVENTS_PAGE_SIZE } from './routes/events.js';
