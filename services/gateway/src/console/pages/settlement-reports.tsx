import type { Hono } from 'hono';
import type { GatewayDeps } from '../../deps';
import type { ConsoleEnv } from '../console-env';

/** Being built (issue 52): the settlement-reports pages. */
export function registerSettlementReportsPages(_app: Hono<ConsoleEnv>, _deps: GatewayDeps) {}
