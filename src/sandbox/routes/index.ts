/**
 * Every JSON endpoint of docs/api-contract.md, in matching order. The bulk CSV uploads are
 * multipart and read as a stream by the server (`../bulk/upload.ts`); their status route is here.
 */
import { dealRoutes } from './deals.js';
import { eventRoutes } from './events.js';
import { importRoutes } from './imports.js';
import { productEventRoutes } from './product-events.js';
import { productRoutes } from './products.js';
import type { Route } from './route.js';
import { userRoutes } from './users.js';
import { webpushRoutes } from './webpush.js';

export const ROUTES: readonly Route[] = [
  ...webpushRoutes,
  ...dealRoutes,
  ...userRoutes,
  ...productRoutes,
  ...eventRoutes,
  ...productEventRoutes,
  ...importRoutes,
];

export type { Endpoint, EndpointAnswer, EndpointRequest, Method, Route } from './route.js';
