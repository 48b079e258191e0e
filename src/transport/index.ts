/** Only `transport/` knows about HTTP; the pipeline talks to `Transport`. */
export { resolveBaseUrl } from './base-url.js';
export { createTransport } from './create-transport.js';
export { listAll } from './list-all.js';
export { inDoubtModeOf, type InDoubtMode } from './in-doubt.js';
export type { ApiRequest, SendOutcome, Transport, TransportEvent, TransportStats } from './types.js';
