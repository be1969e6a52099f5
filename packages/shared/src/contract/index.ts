export * from './balances';
export * from './checkout';
export * from './common';
export * from './customers';
export * from './disputes';
export * from './gateway';
export * from './merchants';
export * from './payments';
export * from './payouts';
export * from './reports';
export * from './requests';
export * from './settlement';
export * from './tokens';
export * from './webhooks';

import type { RouteConfig } from '@hono/zod-openapi';
import { balancesRoutes } from './balances';
import { checkoutRoutes } from './checkout';
import { customersRoutes } from './customers';
import { disputesRoutes } from './disputes';
import { gatewayRoutes } from './gateway';
import { merchantsRoutes } from './merchants';
import { paymentsRoutes } from './payments';
import { payoutsRoutes } from './payouts';
import { reportsRoutes } from './reports';
import { requestsRoutes } from './requests';
import { settlementRoutes } from './settlement';
import { tokensRoutes } from './tokens';
import { webhooksRoutes } from './webhooks';

/** Every route of the public API, for the OpenAPI document. Each domain adds its list here. */
export const allRoutes: RouteConfig[] = [
  ...gatewayRoutes,
  ...paymentsRoutes,
  ...payoutsRoutes,
  ...reportsRoutes,
  ...merchantsRoutes,
  ...balancesRoutes,
  ...tokensRoutes,
  ...checkoutRoutes,
  ...customersRoutes,
  ...disputesRoutes,
  ...webhooksRoutes,
  ...settlementRoutes,
  ...requestsRoutes,
];

/**
 * The routes each service answers, the gateway forwarding them (its own routes are `gatewayRoutes` and the admin
 * ones of `settlementRoutes`): a route added to a service's list is routed by the gateway with no other edit.
 */
export const serviceRoutes = {
  payments: [
    ...paymentsRoutes,
    ...payoutsRoutes,
    ...reportsRoutes,
    ...tokensRoutes,
    ...checkoutRoutes,
    ...customersRoutes,
    ...disputesRoutes,
    ...webhooksRoutes,
  ],
  merchants: [...merchantsRoutes, ...balancesRoutes],
} satisfies Record<string, RouteConfig[]>;

export type ServiceName = keyof typeof serviceRoutes;
