import { createCustomerRoute, getCustomerRoute, listCustomersRoute } from '@pps/shared/contract';
import { list, type ServiceApp, type ServiceDeps } from '@pps/shared/http';
import { customerDocument, customerResource } from './customers.presenter';
import { createCustomer, getCustomer, listAccountCustomers } from './customers.usecases';

/** `/customers*` (docs/design.md). */
export function registerCustomerRoutes(app: ServiceApp, deps: ServiceDeps) {
  const baseUrl = deps.config.PUBLIC_BASE_URL;

  app.openapi(createCustomerRoute, async (c) => {
    const customer = await createCustomer({ ctx: c.get('ctx'), input: c.req.valid('json').data.attributes });
    return c.json(customerDocument(baseUrl, customer), 201);
  });

  app.openapi(getCustomerRoute, async (c) => {
    const customer = await getCustomer({ ctx: c.get('ctx'), input: c.req.valid('param') });
    return c.json(customerDocument(baseUrl, customer), 200);
  });

  app.openapi(listCustomersRoute, async (c) => {
    const query = c.req.valid('query');
    const page = await listAccountCustomers({ ctx: c.get('ctx'), input: query });
    return c.json(
      list(c, baseUrl, page.rows.map(customerResource), {
        total: page.total,
        limit: query.limit,
        offset: query.offset,
        travel: page.travel,
      }),
      200,
    );
  });
}
