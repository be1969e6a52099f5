import type { OpenAPIHono } from '@hono/zod-openapi';
import { advanceClockRoute, getClockRoute } from '@pps/shared/contract';
import { type GatewayDeps, type GatewayEnv, gatewayContext } from '../deps';
import { advanceSandboxClock, getSandboxClock, type SandboxClock } from './clock.usecases';

const clockDocument = (baseUrl: string, accountId: string, { offsetSeconds, realNow }: SandboxClock) => ({
  links: { self: `${baseUrl}/sandbox/clock` },
  data: {
    type: 'clock' as const,
    id: accountId,
    attributes: { now: new Date(realNow.getTime() + offsetSeconds * 1000).toISOString(), offsetSeconds },
  },
});

/** Per-account sandbox clock (Stripe's test clocks are the model): only ever moves forward. */
export function registerClockRoutes(app: OpenAPIHono<GatewayEnv>, deps: GatewayDeps) {
  const base = deps.config.PUBLIC_BASE_URL;
  const ctx = gatewayContext(deps);

  app.openapi(getClockRoute, async (c) => {
    const { account } = c.get('caller');
    return c.json(clockDocument(base, account.id, await getSandboxClock({ ctx: { ...ctx, account } })), 200);
  });

  app.openapi(advanceClockRoute, async (c) => {
    const { account } = c.get('caller');
    const clock = await advanceSandboxClock({ ctx: { ...ctx, account }, input: c.req.valid('json').data.attributes });
    // Authentication caches the account's offset; settlement runs a pass at once for the new time.
    deps.auth.forgetAccount(account.id);
    await deps.onClockAdvanced?.(account.id);
    return c.json(clockDocument(base, account.id, clock), 200);
  });
}
