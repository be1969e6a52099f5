import {
  acceptDisputeRoute,
  getDisputeRoute,
  listDisputesRoute,
  submitDisputeEvidenceRoute,
} from '@pps/shared/contract';
import { list, type ServiceApp, type ServiceDeps } from '@pps/shared/http';
import type { Processor } from '../../processor/processor';
import { disputeDocument } from '../model/disputes.presenter';
import { acceptDispute, getDispute, listDisputes, submitDisputeEvidence } from './disputes.usecases';

/** `/disputes*`: the account's disputes, their evidence and their acceptance. */
export function registerDisputeRoutes(app: ServiceApp, deps: ServiceDeps, processor: Processor) {
  const base = deps.config.PUBLIC_BASE_URL;

  app.openapi(listDisputesRoute, async (c) => {
    const { data, page } = await listDisputes({ ctx: c.get('ctx'), input: c.req.valid('query') });
    return c.json(list(c, base, data, page), 200);
  });

  app.openapi(getDisputeRoute, async (c) => {
    const resource = await getDispute({ ctx: c.get('ctx'), input: c.req.valid('param') });
    return c.json(disputeDocument(base, resource), 200);
  });

  app.openapi(submitDisputeEvidenceRoute, async (c) => {
    const input = { ...c.req.valid('param'), ...c.req.valid('json').data.attributes };
    const resource = await submitDisputeEvidence({ ctx: c.get('ctx'), input, processor });
    return c.json(disputeDocument(base, resource), 200);
  });

  app.openapi(acceptDisputeRoute, async (c) => {
    const resource = await acceptDispute({ ctx: c.get('ctx'), input: c.req.valid('param') });
    return c.json(disputeDocument(base, resource), 200);
  });
}
