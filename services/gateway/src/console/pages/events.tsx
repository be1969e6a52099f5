import type { Hono } from 'hono';
import type { GatewayDeps } from '../../deps';
import type { ConsoleEnv } from '../console-env';

/** Being built (issue 52): the events pages. */
export function registerEventsPages(_app: Hono<ConsoleEnv>, _deps: GatewayDeps) {}
