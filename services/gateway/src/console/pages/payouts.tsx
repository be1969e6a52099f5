import type { Hono } from 'hono';
import type { GatewayDeps } from '../../deps';
import type { ConsoleEnv } from '../console-env';

/** Being built (issue 52): the payouts pages. */
export function registerPayoutsPages(_app: Hono<ConsoleEnv>, _deps: GatewayDeps) {}
