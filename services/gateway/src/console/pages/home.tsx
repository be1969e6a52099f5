import type { Hono } from 'hono';
import type { GatewayDeps } from '../../deps';
import type { ConsoleEnv } from '../console-env';

/** Being built (issue 52): the home page; until then /console opens the payments. */
export function registerHomePages(app: Hono<ConsoleEnv>, _deps: GatewayDeps) {
  app.get('/console', (c) =>
    c.redirect(c.get('viewer').kind === 'account' ? '/console/payments' : '/console/accounts', 303),
  );
}
