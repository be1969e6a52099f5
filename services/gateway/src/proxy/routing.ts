import type { ServiceName } from '@pps/shared/contract';

/** A path prefix the gateway forwards to a service: after authentication, or as the operator for ops' admin calls. */
export type ForwardedPrefix = { prefix: string; service: ServiceName; asOperator: boolean };

/**
 * The prefixes to forward, from the routes each service answers: a route's first path segment (`/payments`), or its
 * first two under `/admin` (`/admin/merchants`: ops' calls, made as the operator behind the admin credentials). Each
 * prefix belongs to one service; two services claiming one is a mistake in the contract, refused at start.
 */
export function forwardedPrefixes(routes: Record<ServiceName, readonly { path: string }[]>): ForwardedPrefix[] {
  const owners = new Map<string, ForwardedPrefix>();
  for (const [service, serviceRoutes] of Object.entries(routes) as [ServiceName, { path: string }[]][]) {
    for (const { path } of serviceRoutes) {
      const segments = path.split('/').filter(Boolean);
      const asOperator = segments[0] === 'admin';
      const prefix = `/${segments.slice(0, asOperator ? 2 : 1).join('/')}`;
      const owner = owners.get(prefix);
      if (owner && owner.service !== service) {
        throw new Error(`${prefix} is answered by both the ${owner.service} and the ${service} service`);
      }
      owners.set(prefix, { prefix, service, asOperator });
    }
  }
  return [...owners.values()];
}
