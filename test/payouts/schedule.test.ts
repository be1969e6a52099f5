import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMerchant, personalMerchantAttributes, setMerchantStatus } from '../fixtures/merchants';
import { type Credentials, createTestStack, expectError, type TestStack } from '../harness';

/** PUT /merchants/{id}/payout-schedule, and the schedule every merchant resource shows. */

let stack: TestStack;
let creds: Credentials;
let other: Credentials;

beforeAll(async () => {
  stack = await createTestStack();
  [creds, other] = await Promise.all([stack.createAccount('Schedules'), stack.createAccount('Other Schedules')]);
});
afterAll(() => stack?.close());

const DAILY = { interval: 'daily', weeklyAnchor: null, monthlyAnchor: null, delayDays: 0 };

const put = (id: string, attributes: unknown, as = creds) =>
  stack.call('PUT', `/merchants/${id}/payout-schedule`, { as, body: { data: { type: 'merchants', attributes } } });

type Stored = {
  interval: string;
  weekly_anchor: string | null;
  monthly_anchor: number | null;
  delay_days: number;
  updated_at: Date;
};
const stored = async (id: string) =>
  (
    await stack.sql<Stored[]>`
      select interval, weekly_anchor, monthly_anchor, delay_days, updated_at from payout_schedules
      where merchant_id = ${id}`
  )[0]!;
const eventsOf = (id: string) =>
  stack.sql<{ type: string; payload: { data: { attributes: Record<string, unknown> } } }[]>`
    select type, payload from events where resource_id = ${id} order by sequence`;

describe('a new merchant', () => {
  it('shows the default schedule (daily, no delay) in GET, POST, events; the list keeps its short items', async () => {
    const created = await stack.call('POST', '/merchants', {
      as: creds,
      body: { data: { type: 'merchants', attributes: personalMerchantAttributes() } },
    });
    expect(created.status).toBe(201);
    expect(created.body.data.attributes.payoutSchedule).toEqual(DAILY);
    const id = created.body.data.id;
    const got = await stack.call('GET', `/merchants/${id}`, { as: creds });
    expect(got.body.data.attributes.payoutSchedule).toEqual(DAILY);
    const [event] = await eventsOf(id);
    expect(event!.payload.data.attributes.payoutSchedule).toEqual(DAILY);
    const listed = await stack.call('GET', '/merchants?limit=1', { as: creds });
    expect(listed.body.data[0].attributes).not.toHaveProperty('payoutSchedule');
  });
});

describe('PUT /merchants/{id}/payout-schedule', () => {
  it.each([
    ['weekly', { interval: 'weekly', weeklyAnchor: 'friday', delayDays: 2 }, { weeklyAnchor: 'friday', delayDays: 2 }],
    ['monthly', { interval: 'monthly', monthlyAnchor: 31 }, { monthlyAnchor: 31 }],
    ['manual', { interval: 'manual', delayDays: 30 }, { delayDays: 30 }],
    [
      'daily with null anchors',
      { interval: 'daily', weeklyAnchor: null, monthlyAnchor: null, delayDays: 1 },
      { delayDays: 1 },
    ],
  ])('sets a %s schedule: 200 with the full merchant, stored, merchant.updated', async (_, attributes, expected) => {
    const id = await createMerchant(stack, creds);
    const before = await stack.call('GET', `/merchants/${id}`, { as: creds });
    const res = await put(id, attributes);
    expect(res.status).toBe(200);
    const schedule = { ...DAILY, interval: attributes.interval, ...expected };
    expect(res.body).toEqual({
      links: { self: `http://localhost:8080/merchants/${id}` },
      data: {
        ...before.body.data,
        attributes: { ...before.body.data.attributes, payoutSchedule: schedule, updatedAt: expect.any(String) },
      },
    });
    expect(new Date(res.body.data.attributes.updatedAt).getTime()).toBeGreaterThanOrEqual(
      new Date(before.body.data.attributes.updatedAt).getTime(),
    );
    expect(await stored(id)).toMatchObject({
      interval: schedule.interval,
      weekly_anchor: schedule.weeklyAnchor,
      monthly_anchor: schedule.monthlyAnchor,
      delay_days: schedule.delayDays,
    });
    expect((await stack.call('GET', `/merchants/${id}`, { as: creds })).body.data).toEqual(res.body.data);
    const events = await eventsOf(id);
    expect(events.map((event) => event.type)).toEqual(['merchant.created', 'merchant.updated']);
    expect(events[1]!.payload.data.attributes).toEqual(res.body.data.attributes);
  });

  it('replaces the whole schedule: what a PUT leaves out goes back to its default', async () => {
    const id = await createMerchant(stack, creds);
    await put(id, { interval: 'weekly', weeklyAnchor: 'monday', delayDays: 5 });
    const res = await put(id, { interval: 'daily' });
    expect(res.body.data.attributes.payoutSchedule).toEqual(DAILY);
  });

  it('changes nothing when the schedule is the same: no event, updatedAt kept', async () => {
    const id = await createMerchant(stack, creds);
    const first = await put(id, { interval: 'monthly', monthlyAnchor: 15 });
    const again = await put(id, { interval: 'monthly', monthlyAnchor: 15, delayDays: 0 });
    expect(again.status).toBe(200);
    expect(again.body.data).toEqual(first.body.data);
    expect((await eventsOf(id)).map((event) => event.type)).toEqual(['merchant.created', 'merchant.updated']);
  });

  const A = '/data/attributes';
  it.each([
    ['no interval', { delayDays: 1 }, [['missing_field', `${A}/interval`]]],
    ['an unknown interval', { interval: 'hourly' }, [['invalid_field', `${A}/interval`]]],
    ['weekly without its anchor', { interval: 'weekly' }, [['missing_field', `${A}/weeklyAnchor`]]],
    [
      'weekly on a weekend day',
      { interval: 'weekly', weeklyAnchor: 'saturday' },
      [['invalid_field', `${A}/weeklyAnchor`]],
    ],
    ['monthly without its anchor', { interval: 'monthly' }, [['missing_field', `${A}/monthlyAnchor`]]],
    ['monthly on day 0', { interval: 'monthly', monthlyAnchor: 0 }, [['invalid_field', `${A}/monthlyAnchor`]]],
    ['monthly on day 32', { interval: 'monthly', monthlyAnchor: 32 }, [['invalid_field', `${A}/monthlyAnchor`]]],
    ['monthly on day 1.5', { interval: 'monthly', monthlyAnchor: 1.5 }, [['invalid_field', `${A}/monthlyAnchor`]]],
    ['monthly on day "15"', { interval: 'monthly', monthlyAnchor: '15' }, [['invalid_field', `${A}/monthlyAnchor`]]],
    [
      'a weekly anchor on a daily schedule',
      { interval: 'daily', weeklyAnchor: 'monday' },
      [['invalid_field', `${A}/weeklyAnchor`]],
    ],
    [
      'a monthly anchor on a weekly one',
      { interval: 'weekly', weeklyAnchor: 'monday', monthlyAnchor: 3 },
      [['invalid_field', `${A}/monthlyAnchor`]],
    ],
    ['an anchor on a manual one', { interval: 'manual', monthlyAnchor: 3 }, [['invalid_field', `${A}/monthlyAnchor`]]],
    ['delayDays -1', { interval: 'daily', delayDays: -1 }, [['invalid_field', `${A}/delayDays`]]],
    ['delayDays 31', { interval: 'daily', delayDays: 31 }, [['invalid_field', `${A}/delayDays`]]],
    ['delayDays 2.5', { interval: 'daily', delayDays: 2.5 }, [['invalid_field', `${A}/delayDays`]]],
    ['delayDays "2"', { interval: 'daily', delayDays: '2' }, [['invalid_field', `${A}/delayDays`]]],
    [
      'everything wrong at once',
      { interval: 'weekly', monthlyAnchor: 40, delayDays: 99 },
      [
        ['missing_field', `${A}/weeklyAnchor`],
        ['invalid_field', `${A}/monthlyAnchor`], // out of range, and not a weekly schedule's: both said
        ['invalid_field', `${A}/monthlyAnchor`],
        ['invalid_field', `${A}/delayDays`],
      ],
    ],
  ] as const)('400s %s, with each pointer, and changes nothing', async (_, attributes, expected) => {
    const id = await createMerchant(stack, creds);
    await put(id, { interval: 'weekly', weeklyAnchor: 'tuesday', delayDays: 3 });
    const before = await stored(id);
    const res = await put(id, attributes);
    for (const [code, pointer] of expected) expectError(res, 400, code, pointer);
    expect(res.body.errors).toHaveLength(expected.length);
    expect(await stored(id)).toEqual(before);
    expect((await eventsOf(id)).map((event) => event.type)).toEqual(['merchant.created', 'merchant.updated']);
  });

  it('400s a body of another type on /data/type', async () => {
    const id = await createMerchant(stack, creds);
    const res = await stack.call('PUT', `/merchants/${id}/payout-schedule`, {
      as: creds,
      body: { data: { type: 'payouts', attributes: { interval: 'daily' } } },
    });
    expectError(res, 400, 'invalid_field', '/data/type');
  });

  it('404s an unknown or malformed merchant, 403s another account’s, and changes nothing', async () => {
    expectError(await put('mer_00000000000000000000000000', { interval: 'manual' }), 404, 'merchant_not_found');
    expectError(await put('nope', { interval: 'manual' }), 404, 'merchant_not_found');
    const theirs = await createMerchant(stack, other);
    const before = await stored(theirs);
    expectError(await put(theirs, { interval: 'manual' }), 403, 'merchant_forbidden');
    expect(await stored(theirs)).toEqual(before);
  });

  it('422s a closed merchant (merchant_closed) and changes nothing; a suspended one may change', async () => {
    const closed = await createMerchant(stack, creds);
    await setMerchantStatus(stack, closed, 'closed');
    const before = await stored(closed);
    expectError(await put(closed, { interval: 'manual' }), 422, 'merchant_closed');
    expect(await stored(closed)).toEqual(before);
    const suspended = await createMerchant(stack, creds);
    await setMerchantStatus(stack, suspended, 'suspended');
    expect((await put(suspended, { interval: 'manual' })).status).toBe(200);
  });
});
