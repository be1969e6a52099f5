import { setMerchantFeaturesRoute, setMerchantStatusRoute } from '@pps/shared/contract';
import { type ServiceApp, single } from '@pps/shared/http';
import { merchantUrl } from '../merchants/model/merchants.presenter';
import { changeMerchantStatus, updateMerchantFeatures } from './admin.usecases';

/** `/admin/merchants/*`: the gateway checks ADMIN_TOKEN and forwards as the operator; the use cases refuse anyone else. */
export function registerAdminRoutes(app: ServiceApp) {
  app.openapi(setMerchantStatusRoute, async (c) => {
    const ctx = c.get('ctx');
    const { status, reason } = c.req.valid('json').data.attributes;
    const merchant = await changeMerchantStatus({
      ctx,
      input: { merchantId: c.req.valid('param').id, status, reason },
    });
    return c.json(single(merchantUrl(ctx.config.PUBLIC_BASE_URL, merchant.id), merchant), 200);
  });

  app.openapi(setMerchantFeaturesRoute, async (c) => {
    const ctx = c.get('ctx');
    const { features } = c.req.valid('json').data.attributes;
    const merchant = await updateMerchantFeatures({ ctx, input: { merchantId: c.req.valid('param').id, features } });
    return c.json(single(merchantUrl(ctx.config.PUBLIC_BASE_URL, merchant.id), merchant), 200);
  });
}
