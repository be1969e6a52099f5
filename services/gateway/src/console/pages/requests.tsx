import type { Hono } from 'hono';
import type { GatewayDeps } from '../../deps';
import type { ConsoleEnv } from '../console-env';

/** Being built (issue 52): the requests pages. */
export function registerRequestsPages(_app: Hono<ConsoleEnv>, _deps: GatewayDeps) {}
