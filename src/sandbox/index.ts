/** The local API sandbox: `startSandbox` and what its callers read. */
export { startSandbox, type Sandbox } from './server.js';
export type { SandboxOptions } from './options.js';
export { mulberry32 } from './faults.js';
export type * from './records.js';
export { PRODUCT_EVENT_TYPES } from './routes/product-events.js';
