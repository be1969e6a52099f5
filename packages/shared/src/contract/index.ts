export * from './common';
export * from './gateway';

import type { RouteConfig } from '@hono/zod-openapi';
import { gatewayRoutes } from './gateway';

/** Every route of the public API, for the OpenAPI document. Each domain adds its list here. */
export const allRoutes: RouteConfig[] = [...gatewayRoutes];
