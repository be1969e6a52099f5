import { changeMerchantStatus, updateMerchantFeatures } from '@pps/merchants';
import { createMerchantsApp } from '@pps/merchants/app';
import { systemClock } from '@pps/shared/clock';
import { OPERATOR_ACCOUNT_ID, signInternal } from '@pps/shared/http';
import { createLogger } from '@pps/shared/logger';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findMerchant as merchantForPayment } from '../../services/payments/src/payments/model/payments.repository';
import {
  createMerchant,
  personalMerchantAttributes,
  setMerchantFeatures,
  setMerchantStatus,
} from '../fixtures/merchants';
import { type Credentials, createTestStack, expectError, type TestStack } from '../harness';

let stack: TestStack;
let creds: Credentials;

beforeAll(async () => {
  stack = await createTestStack();
  creds = await stack.createAccount('Admin Platform');
});
afterAll(() => stack.close());

const statuses = ['pending', 'active', 'suspended', 'closed'] as const;
type Status = (typeof statuses)[number];
const legal: [Status, Status][] = [
  ['pending', 'active'],
  ['pending', 'closed'],
  ['active', 'suspended'],
  ['suspended', 'active'],
  ['active', 'closed'],
  ['suspended', 'closed'],
];
const isLegal = (from: Status, to: Status) => legal.some(([f, t]) => f === from && t === to);
const pairs = statuses.flatMap((from) => statuses.map((to) => [from, to] as [Status, Status]));

const statusBody = (status: string, reason?: string) => ({
  data: { type: 'merchants', attributes: { status, ...(reason ? { reason } : {}) } },
});
const putStatus = (id: string, status: string, reason?: string) =>
  stack.call('PUT', `/admin/merchants/${id}/status`, { headers: stack.admin, body: statusBody(status, reason) });

/** A merchant of `creds` in the given status, reached through legal transitions. */
async function merchantIn(status: Status): Promise<string> {
  const base = personalMerchantAttributes();
  if (status === 'pending') {
    return createMerchant(stack, creds, { personalInfo: { ...base.personalInfo, firstName: 'Review' } });
  }
  const id = await createMerchant(stack, creds);
  if (status === 'suspended' || status === 'closed') await setMerchantStatus(stack, id, status);
  return id;
}

describe('PUT /admin/merchants/{id}/status', () => {
  it('has 6 legal and 10 illegal pairs', () => {
    expect(pairs.filter(([from, to]) => isLegal(from, to))).toHaveLength(6);
    expect(pairs.filter(([from, to]) => !isLegal(from, to))).toHaveLength(10);
  });

  it.each(pairs.filter(([from, to]) => isLegal(from, to)))('moves %s → %s', async (from, to) => {
    const id = await merchantIn(from);
    const res = await putStatus(id, to, `ops: ${from} to ${to}`);
    expect(res.status).toBe(200);
    expect(res.body.links.self).toBe(`http://localhost:8080/merchants/${id}`);
    expect(res.body.data).toMatchObject({
      type: 'merchants',
      id,
      attributes: { status: to, statusReason: `ops: ${from} to ${to}` },
    });
    expect(res.body.data.attributes.personalInfo.socialSecurity).toMatch(/^xxxx\d{4}$/);
    const read = await stack.call('GET', `/merchants/${id}`, { as: creds });
    expect(read.body.data).toEqual(res.body.data);
    const [event] = await stack.sql<{ payload: Record<string, unknown> }[]>`
      select payload from events where resource_id = ${id} and type = 'merchant.status_changed' order by sequence desc limit 1`;
    expect(event!.payload.data).toMatchObject({ previousStatus: from, attributes: { status: to } });
  });

  it.each(pairs.filter(([from, to]) => !isLegal(from, to)))(
    'refuses %s → %s with 422 illegal_transition',
    async (from, to) => {
      const id = await merchantIn(from);
      const [before] = await stack.sql<
        { count: number }[]
      >`select count(*)::int as count from events where resource_id = ${id}`;
      const error = expectError(await putStatus(id, to), 422, 'illegal_transition');
      expect(error.detail).toBe(`A ${from} merchant cannot become ${to}`);
      const read = await stack.call('GET', `/merchants/${id}`, { as: creds });
      expect(read.body.data.attributes.status).toBe(from);
      const [after] = await stack.sql<
        { count: number }[]
      >`select count(*)::int as count from events where resource_id = ${id}`;
      expect(after!.count).toBe(before!.count);
    },
  );

  it('takes the reason as optional and clears it on the next change', async () => {
    const id = await merchantIn('active');
    expect((await putStatus(id, 'suspended', 'fraud review')).body.data.attributes.statusReason).toBe('fraud review');
    expect((await putStatus(id, 'active')).body.data.attributes.statusReason).toBeNull();
  });

  it('400s an unknown status, a missing one and a wrong type', async () => {
    const id = await merchantIn('active');
    expectError(await putStatus(id, 'deleted'), 400, 'invalid_field', '/data/attributes/status');
    expectError(
      await stack.call('PUT', `/admin/merchants/${id}/status`, {
        headers: stack.admin,
        body: { data: { type: 'merchants', attributes: { reason: 'x' } } },
      }),
      400,
      'missing_field',
      '/data/attributes/status',
    );
    expectError(
      await stack.call('PUT', `/admin/merchants/${id}/status`, {
        headers: stack.admin,
        body: { data: { type: 'accounts', attributes: { status: 'closed' } } },
      }),
      400,
      'invalid_field',
      '/data/type',
    );
  });

  it('404s an unknown or malformed merchant id', async () => {
    expectError(await putStatus('mer_00000000000000000000000000', 'active'), 404, 'merchant_not_found');
    expectError(await putStatus('nope', 'active'), 404, 'merchant_not_found');
  });

  it('401s a caller without the admin token, account credentials included (the gateway refuses)', async () => {
    const id = await merchantIn('active');
    const asAccount = await stack.call('PUT', `/admin/merchants/${id}/status`, {
      as: creds,
      body: statusBody('closed'),
    });
    expectError(asAccount, 401, 'invalid_admin_token');
    const noToken = await stack.call('PUT', `/admin/merchants/${id}/features`, {
      body: { data: { type: 'merchants', attributes: { features: { secondSplit: true } } } },
    });
    expectError(noToken, 401, 'invalid_admin_token');
    const read = await stack.call('GET', `/merchants/${id}`, { as: creds });
    expect(read.body.data.attributes).toMatchObject({ status: 'active', features: { secondSplit: false } });
  });

  it('403s a non-operator context that reaches the service directly with a valid signature', async () => {
    const id = await merchantIn('active');
    const app = createMerchantsApp({ config: stack.config, db: stack.db, log: createLogger({ level: 'silent' }) });
    const call = (accountId: string, path: string, body: unknown) =>
      app.request(path, {
        method: 'PUT',
        headers: {
          ...signInternal(
            stack.config.INTERNAL_SECRET,
            { accountId, appId: 'app_x', clockOffsetSeconds: 0, requestId: 'req_direct' },
            'PUT',
            path,
          ),
          'content-type': 'application/json',
        },
        body: JSON.stringify(body),
      });
    const status = await call(creds.accountId, `/admin/merchants/${id}/status`, statusBody('closed'));
    expect(status.status).toBe(403);
    expect((await status.json()).errors[0].code).toBe('operator_only');
    const features = await call(creds.accountId, `/admin/merchants/${id}/features`, {
      data: { type: 'merchants', attributes: { features: { secondSplit: true } } },
    });
    expect(features.status).toBe(403);
    const operator = await call('operator', `/admin/merchants/${id}/status`, statusBody('suspended'));
    expect(operator.status).toBe(200);
    const unsigned = await app.request(`/admin/merchants/${id}/status`, {
      method: 'PUT',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(statusBody('closed')),
    });
    expect(unsigned.status).toBe(401);
  });
});

describe('PUT /admin/merchants/{id}/features', () => {
  it('switches secondSplit on and off; the resource and the payments service show it', async () => {
    const id = await merchantIn('active');
    const on = await stack.call('PUT', `/admin/merchants/${id}/features`, {
      headers: stack.admin,
      body: { data: { type: 'merchants', attributes: { features: { secondSplit: true } } } },
    });
    expect(on.status).toBe(200);
    expect(on.body.data.attributes.features).toEqual({ secondSplit: true });
    expect((await stack.call('GET', `/merchants/${id}`, { as: creds })).body.data.attributes.features).toEqual({
      secondSplit: true,
    });
    expect(await merchantForPayment(stack.db, id)).toEqual({
      id,
      accountId: creds.accountId,
      status: 'active',
      avsMode: 'Standard',
      features: { secondSplit: true },
      feeRateBasisPoints: null,
      feeFixedCents: null,
    });
    await setMerchantFeatures(stack, id, { secondSplit: false });
    expect((await merchantForPayment(stack.db, id))?.features).toEqual({ secondSplit: false });
    const types = await stack.sql<{ type: string }[]>`
      select type from events where resource_id = ${id} order by sequence`;
    expect(types.map((row) => row.type)).toEqual(['merchant.created', 'merchant.updated', 'merchant.updated']);
  });

  it('400s a features body without a boolean secondSplit', async () => {
    const id = await merchantIn('active');
    const res = await stack.call('PUT', `/admin/merchants/${id}/features`, {
      headers: stack.admin,
      body: { data: { type: 'merchants', attributes: { features: { secondSplit: 'yes' } } } },
    });
    expectError(res, 400, 'invalid_field', '/data/attributes/features/secondSplit');
  });

  it('the payments service finds no unknown merchant', async () => {
    expect(await merchantForPayment(stack.db, 'mer_00000000000000000000000000')).toBeUndefined();
  });
});

describe('use cases without HTTP (as the CLI calls them)', () => {
  it('change status and features in the operator context, and refuse any other', async () => {
    const id = await merchantIn('active');
    const ctx = {
      accountId: OPERATOR_ACCOUNT_ID,
      appId: 'cli',
      clockOffsetSeconds: 0,
      requestId: 'req_cli',
      config: stack.config,
      db: stack.db,
      clock: systemClock,
      log: createLogger({ level: 'silent' }),
    };
    const suspended = await changeMerchantStatus({
      ctx,
      input: { merchantId: id, status: 'suspended', reason: 'cli' },
    });
    expect(suspended.attributes).toMatchObject({ status: 'suspended', statusReason: 'cli' });
    const flagged = await updateMerchantFeatures({ ctx, input: { merchantId: id, features: { secondSplit: true } } });
    expect(flagged.attributes.features).toEqual({ secondSplit: true });
    await expect(changeMerchantStatus({ ctx, input: { merchantId: id, status: 'pending' } })).rejects.toMatchObject({
      status: 422,
      code: 'illegal_transition',
    });
    await expect(
      changeMerchantStatus({
        ctx: { ...ctx, accountId: creds.accountId },
        input: { merchantId: id, status: 'active' },
      }),
    ).rejects.toMatchObject({ status: 403, code: 'operator_only' });
  });
});
