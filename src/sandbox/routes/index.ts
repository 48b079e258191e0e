/** Every endpoint of docs/api-contract.md but the bulk CSV ones, in matching order. */
import { dealRoutes } from './deals.js';
import { eventRoutes } from './events.js';
import { productEventRoutes } from './product-events.js';
import { productRoutes } from './products.js';
import type { Route } from './route.js';
import { userRoutes } from './users.js';
import { webpushRoutes } from './webpush.js';

export const ROUTES: readonly Route[] = [...webpushRoutes, ...dealRoutes, ...userRoutes, ...productRoutes, ...eventRoutes, ...productEventRoutes];

export type { Endpoint, EndpointAnswer, EndpointRequest, Method, Route } from './route.js';
