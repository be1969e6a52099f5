import { absoluteUrl, single } from '@pps/shared/http';
import type { Customer } from './customers.repository';

export const customerResource = (customer: Customer) => ({
  type: 'customers' as const,
  id: customer.id,
  attributes: {
    name: customer.name,
    email: customer.email,
    phone: customer.phone,
    externalId: customer.externalId,
    merchantId: customer.merchantId,
    createdAt: customer.createdAt.toISOString(),
    updatedAt: customer.updatedAt.toISOString(),
  },
});

export const customerDocument = (baseUrl: string, customer: Customer) =>
  single(absoluteUrl(baseUrl, `/customers/${customer.id}`), customerResource(customer));
