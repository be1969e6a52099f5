import { createClient } from '@pps/sdk';

/**
 * Type-checked by test/sdk/types.slow.test.ts (and by `npm run typecheck`): every `@ts-expect-error` below must meet an
 * error, so a wrong path or body that the SDK's types let through fails the check. Never run.
 */
export async function wrongBodies() {
  const client = createClient({ baseUrl: 'http://127.0.0.1:8080', apiKey: 'sk_test_x', appId: 'app_x' });

  // @ts-expect-error: no such path
  await client.GET('/paymentz');
  // @ts-expect-error: the path's id is required
  await client.GET('/payments/{id}', {});
  await client.POST('/payments', {
    body: {
      data: {
        type: 'payments',
        attributes: {
          paymentType: 'refund',
          parentPaymentId: 'pay_1',
          // @ts-expect-error: amounts are strings of cents, never numbers
          transaction: { amount: 500, currency: 'USD' },
        },
      },
    },
  });
  await client.POST('/payments', {
    // @ts-expect-error: an unknown paymentType
    body: { data: { type: 'payments', attributes: { paymentType: 'cash', parentPaymentId: 'pay_1' } } },
  });
  await client.POST('/payments', {
    // @ts-expect-error: the envelope's type is "payments"
    body: { data: { type: 'payment', attributes: { paymentType: 'capture', parentPaymentId: 'pay_1' } } },
  });
  await client.createPayment({
    data: {
      type: 'payments',
      attributes: {
        paymentType: 'refund',
        parentPaymentId: 'pay_1',
        // @ts-expect-error: only USD
        transaction: { amount: '500', currency: 'EUR' },
      },
    },
  });

  // And what is right type-checks, answers included.
  const refund = await client.createPayment({
    data: {
      type: 'payments',
      attributes: { paymentType: 'refund', parentPaymentId: 'pay_1', transaction: { amount: '500', currency: 'USD' } },
    },
  });
  // A call resolves only with a success: `data` is always there.
  const status: string = refund.data.data.attributes.status;
  for await (const payment of client.list('/payments', { query: { id: 'mer_1' } })) {
    const amount: string = payment.attributes.transaction.amount;
    void amount;
  }
  return status;
}
