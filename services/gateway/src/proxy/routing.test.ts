import { serviceRoutes } from '@pps/shared/contract';
import { describe, expect, it } from 'vitest';
import { forwardedPrefixes } from './routing';

describe('forwardedPrefixes', () => {
  it('routes every path prefix of the contract to the service that answers it', () => {
    const prefixes = forwardedPrefixes(serviceRoutes);
    const owner = (prefix: string) => prefixes.find((candidate) => candidate.prefix === prefix);
    expect(owner('/payments')).toEqual({ prefix: '/payments', service: 'payments', asOperator: false });
    expect(owner('/webhooks')).toEqual({ prefix: '/webhooks', service: 'payments', asOperator: false });
    expect(owner('/merchants')).toEqual({ prefix: '/merchants', service: 'merchants', asOperator: false });
    expect(owner('/admin/merchants')).toEqual({ prefix: '/admin/merchants', service: 'merchants', asOperator: true });
    const services = Object.entries(serviceRoutes);
    for (const [service, routes] of services) {
      for (const { path } of routes) {
        expect(prefixes.some((p) => p.service === service && `${path}/`.startsWith(`${p.prefix}/`))).toBe(true);
      }
    }
  });

  it('routes a route added to a service with no other edit', () => {
    const routes = { ...serviceRoutes, payments: [...serviceRoutes.payments, { path: '/disputes/{id}' }] };
    expect(forwardedPrefixes(routes)).toContainEqual({ prefix: '/disputes', service: 'payments', asOperator: false });
  });

  it('refuses a prefix two services claim', () => {
    const routes = { payments: [{ path: '/things' }], merchants: [{ path: '/things/{id}' }] };
    expect(() => forwardedPrefixes(routes)).toThrow(
      '/things is answered by both the payments and the merchants service',
    );
  });
});
