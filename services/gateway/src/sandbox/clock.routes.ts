import type { OpenAPIHono } from '@hono/zod-openapi';
import { advanceClockRoute, getClockRoute } from '@pps/shared/contract';
import { type Db, schema, withTransaction } from '@pps/shared/db';
import { unprocessable } from '@pps/shared/http';
import { eq } from 'drizzle-orm';
import type { GatewayDeps, GatewayEnv } from '../deps';

const clockDocument = (baseUrl: string, accountId: string, offsetSeconds: number, realNow: Date) => ({
  links: { self: `${baseUrl}/sandbox/clock` },
  data: {
    type: 'clock' as const,
    id: accountId,
    attributes: { now: new Date(realNow.getTime() + offsetSeconds * 1000).toISOString(), offsetSeconds },
  },
});

async function readOffset(db: Db, accountId: string): Promise<number> {
  const [row] = await db
    .select({ offset: schema.accounts.clockOffsetSeconds })
    .from(schema.accounts)
    .where(eq(schema.accounts.id, accountId));
  return row?.offset ?? 0;
}

/** How far ahead a sandbox clock may run: every date computed from it stays a valid, sensible date. */
const MAX_OFFSET_YEARS = 10;
const MAX_OFFSET_SECONDS = MAX_OFFSET_YEARS * 366 * 86_400;

/** Per-account sandbox clock (Stripe's test clocks are the model): only ever moves forward. */
export function registerClockRoutes(app: OpenAPIHono<GatewayEnv>, deps: GatewayDeps) {
  const base = deps.config.PUBLIC_BASE_URL;

  app.openapi(getClockRoute, async (c) => {
    const { accountId } = c.get('caller');
    return c.json(clockDocument(base, accountId, await readOffset(deps.db, accountId), deps.clock.now()), 200);
  });

  app.openapi(advanceClockRoute, async (c) => {
    const { accountId } = c.get('caller');
    const { advanceSeconds, time } = c.req.valid('json').data.attributes;
    const realNow = deps.clock.now();
    const offsetSeconds = await withTransaction(deps.db, async (tx) => {
      const [row] = await tx
        .select({ offset: schema.accounts.clockOffsetSeconds })
        .from(schema.accounts)
        .where(eq(schema.accounts.id, accountId))
        .for('update');
      const current = row?.offset ?? 0;
      const target =
        advanceSeconds !== undefined
          ? current + advanceSeconds
          : Math.floor((new Date(time!).getTime() - realNow.getTime()) / 1000);
      const pointer = advanceSeconds !== undefined ? '/data/attributes/advanceSeconds' : '/data/attributes/time';
      if (target < current) throw unprocessable('clock_backwards', 'The sandbox clock only moves forward', pointer);
      if (!Number.isSafeInteger(target) || target > MAX_OFFSET_SECONDS) {
        throw unprocessable(
          'clock_out_of_range',
          `The sandbox clock goes at most ${MAX_OFFSET_YEARS} years ahead of real time`,
          pointer,
        );
      }
      await tx
        .update(schema.accounts)
        .set({ clockOffsetSeconds: target, updatedAt: realNow })
        .where(eq(schema.accounts.id, accountId));
      return target;
    });
    deps.auth.forgetAccount(accountId);
    deps.log.info({ accountId, offsetSeconds }, 'sandbox clock moved');
    await deps.onClockAdvanced?.(accountId);
    return c.json(clockDocument(base, accountId, offsetSeconds, realNow), 200);
  });
}
