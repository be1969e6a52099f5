import {
  getMerchantRoute,
  listMerchantsRoute,
  merchantRequestSchemas,
  merchantRoutesFor,
  updatePayoutScheduleRoute,
} from '@pps/shared/contract';
import { list, type ServiceApp, type ServiceEnv, single } from '@pps/shared/http';
import type { Context } from 'hono';
import { merchantFieldRules } from '../../validation';
import { merchantUrl } from '../model/merchants.presenter';
import type { MerchantSecrets, MerchantsContext } from '../model/merchants.secrets';
import { createMerchantHook } from './age-check.hook';
import { updateBankInfo } from './bank-accounts.usecases';
import { createMerchant, getMerchant, listMerchants, updateAvsMode } from './merchants.usecases';
import { updatePayoutSchedule } from './payout-schedules.usecases';

/** The contract's merchant routes with the service's field rules (ABA checksum, SSN ranges, …). */
const routes = merchantRoutesFor(merchantRequestSchemas(merchantFieldRules));

export function registerMerchantRoutes(app: ServiceApp, secrets: MerchantSecrets) {
  const ctxOf = (c: Context<ServiceEnv>): MerchantsContext => ({ ...c.get('ctx'), secrets });
  const urlOf = (c: Context<ServiceEnv>, id: string) => merchantUrl(c.get('ctx').config.PUBLIC_BASE_URL, id);

  app.openapi(
    routes.createMerchantRoute,
    async (c) => {
      const merchant = await createMerchant({ ctx: ctxOf(c), input: c.req.valid('json').data.attributes });
      return c.json(single(urlOf(c, merchant.id), merchant), 201);
    },
    // Our hook answers with the error envelope, which the route's typed responses don't list.
    createMerchantHook as never,
  );

  app.openapi(listMerchantsRoute, async (c) => {
    const query = c.req.valid('query');
    const { items, total, travel } = await listMerchants({ ctx: c.get('ctx'), input: query });
    const page = { total, limit: query.limit, offset: query.offset, travel };
    return c.json(list(c, c.get('ctx').config.PUBLIC_BASE_URL, items, page), 200);
  });

  app.openapi(getMerchantRoute, async (c) => {
    const merchant = await getMerchant({ ctx: c.get('ctx'), input: { merchantId: c.req.valid('param').id } });
    return c.json(single(urlOf(c, merchant.id), merchant), 200);
  });

  app.openapi(routes.updateMerchantRoute, async (c) => {
    const merchantId = c.req.valid('param').id;
    const attributes = c.req.valid('json').data.attributes;
    const updated =
      attributes.group === 'bankInfo'
        ? await updateBankInfo({ ctx: ctxOf(c), input: { merchantId, bankInfo: attributes.bankInfo } })
        : await updateAvsMode({ ctx: c.get('ctx'), input: { merchantId, avsMode: attributes.AVS } });
    return c.json(single(urlOf(c, merchantId), updated), 200);
  });

  app.openapi(routes.updateBankInfoRoute, async (c) => {
    const merchantId = c.req.valid('param').id;
    const { bankInfo } = c.req.valid('json').data.attributes;
    const updated = await updateBankInfo({ ctx: ctxOf(c), input: { merchantId, bankInfo } });
    return c.json(single(urlOf(c, merchantId), updated), 200);
  });

  app.openapi(routes.updateAvsModeRoute, async (c) => {
    const merchantId = c.req.valid('param').id;
    const { AVS } = c.req.valid('json').data.attributes;
    const updated = await updateAvsMode({ ctx: c.get('ctx'), input: { merchantId, avsMode: AVS } });
    return c.json(single(urlOf(c, merchantId), updated), 200);
  });

  app.openapi(updatePayoutScheduleRoute, async (c) => {
    const merchantId = c.req.valid('param').id;
    const schedule = c.req.valid('json').data.attributes;
    const updated = await updatePayoutSchedule({ ctx: c.get('ctx'), input: { merchantId, schedule } });
    return c.json(single(urlOf(c, merchantId), updated), 200);
  });
}
