import { createDataCipher, runDisputes, SandboxProcessor } from '@pps/payments';
import { runSettlementPass } from '@pps/settlement';
import { settleAtFor } from '@pps/shared/clock';
import { createLogger } from '@pps/shared/logger';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMerchant } from '../../fixtures/merchants';
import { createCardToken, createPayment, setClock, tokenv3Body } from '../../fixtures/payments';
import { type Receiver, startReceiver } from '../../fixtures/receiver';
import { type Credentials, createTestStack, type TestStack } from '../../harness';
import { waitFor } from '../../wait';
import { checkPage, launchChromium, serveGateway, watchedPage } from './console-page-check';

/**
 * The console's Disputes and Webhooks sections in chromium, as an account's developer uses them: answer a chargeback
 * with evidence typed into the form, submit it after the confirmation and see it under review; then resend a
 * delivery that failed and see the notice, the redelivery and the new attempt. Every page visited passes axe-core,
 * runs no script of a user string and breaks no rule of the Content-Security-Policy.
 */

const XSS = '<script>window.__xss=1</script><img src=x onerror="window.__xss=2">';
const log = createLogger({ level: 'silent' });

let stack: TestStack;
let receiver: Receiver;
let stopServing: (() => Promise<void>) | undefined;
let origin: string;
let browser: Browser;
let acme: Credentials;
let disputeId: string;
let failing: string;
let failedEvent: string;

/** A settled payment of the chargeback card, disputed by the clock the business day after: the dispute's id. */
async function chargeback(as: Credentials) {
  const deps = {
    db: stack.db,
    config: stack.config,
    cipher: createDataCipher(stack.config),
    processor: new SandboxProcessor({ db: stack.db }),
    log,
  };
  const pass = async () => {
    await runSettlementPass(deps, { now: new Date(), batchSize: 100, accountId: as.accountId });
    return runDisputes(deps, { now: new Date(), accountId: as.accountId });
  };
  const merchantId = await createMerchant(stack, as, { accountName: `Shop ${XSS}` });
  const tokenId = await createCardToken(stack, as, '4000000000000259');
  const paid = (await createPayment(stack, as, tokenv3Body({ merchantId, tokenId, amount: '8000' }))).body.data;
  await setClock(stack, as, new Date(new Date(paid.attributes.settleAt).getTime() + 1000));
  await pass();
  const [settled] = await stack.sql`select settled_at from payments where id = ${paid.id}`;
  await setClock(stack, as, new Date(settleAtFor(new Date(settled!.settled_at), 1).getTime() + 1000));
  expect((await pass()).opened).toBe(1);
  return (await stack.call('GET', `/disputes?paymentId=${paid.id}`, { as })).body.data[0].id as string;
}

const delivery = async () =>
  (
    await stack.sql`
      select event_id, status, attempts, redeliveries from webhook_deliveries where endpoint_id = ${failing}`
  )[0];

beforeAll(async () => {
  receiver = await startReceiver();
  receiver.answer('/fail', () => ({ status: 500, body: `down ${XSS}` }));
  stack = await createTestStack({
    webhooks: true,
    env: { WEBHOOK_RETRY_SCHEDULE_SECONDS: '1,1', WEBHOOK_TIMEOUT_MS: '2000', OUTBOX_POLL_INTERVAL_MS: '200' },
  });
  ({ origin, close: stopServing } = await serveGateway(stack));
  [browser, acme] = await Promise.all([launchChromium(), stack.createAccount(`Acme ${XSS}`)]);
  const subscribe = async (url: string, events: string[]) =>
    (
      await stack.call('POST', '/webhooks', {
        as: acme,
        body: { data: { type: 'webhooks', attributes: { url, events, description: XSS } } },
      })
    ).body.data.id as string;
  failing = await subscribe(receiver.url('/fail'), ['payment.created']);
  await subscribe(`https://example.com/h?x=${XSS}`, ['payout.failed']);
  disputeId = await chargeback(acme);
  failedEvent = (await waitFor(delivery, {
    until: (row) => row?.status === 'failed',
    what: 'a failed delivery',
    timeoutMs: 30_000,
  }))!.event_id;
}, 90_000);

afterAll(async () => {
  await browser?.close();
  await stopServing?.();
  await stack?.close();
  await receiver?.close();
});

describe('the console’s disputes and webhooks in chromium', () => {
  it('answers a dispute with evidence and resends a failed webhook delivery', async () => {
    const { context, page, cspViolations } = await watchedPage(browser);

    await page.goto(`${origin}/console/sign-in`);
    await page.getByLabel('API key').fill(acme.apiKey);
    await Promise.all([page.waitForURL(/\/console$/), page.getByRole('button', { name: 'Sign in' }).click()]);

    // Disputes: the one needing a response is listed first; open it, type the evidence, submit, confirm.
    await Promise.all([page.waitForURL(/\/console\/disputes$/), page.getByRole('link', { name: 'Disputes' }).click()]);
    await checkPage(page, cspViolations);
    const open = page.getByRole('table', { name: 'Disputes needing a response, soonest due first' });
    expect(await open.locator('tbody th a').allTextContents()).toEqual([disputeId]);
    await Promise.all([
      page.waitForURL(new RegExp(`/console/disputes/${disputeId}$`)),
      open.locator('tbody th a').click(),
    ]);
    await checkPage(page, cspViolations);
    await page.getByLabel('Product description').pressSequentially('Hand-thrown mug');
    await page.getByLabel('Customer name').pressSequentially('Dee Spute');
    await page.getByLabel('Customer communication').fill(`Thanks for the mug! ${XSS}`);
    await page.getByLabel('Shipping tracking number').pressSequentially('1Z999AA10123456784');
    await page.getByLabel('Other evidence').pressSequentially('winning_evidence');
    await Promise.all([page.waitForURL(/\/evidence$/), page.getByRole('button', { name: 'Submit evidence…' }).click()]);
    await checkPage(page, cspViolations);
    expect(await page.locator('h1').textContent()).toBe(`Submit the evidence of ${disputeId}?`);
    expect(await page.locator('main').textContent()).toContain(`Thanks for the mug! ${XSS}`);
    await Promise.all([
      page.waitForURL(/done=submitted/),
      page.getByRole('button', { name: 'Confirm submission' }).click(),
    ]);
    await checkPage(page, cspViolations);
    expect(await page.getByRole('status').textContent()).toBe('Evidence submitted to the bank.');
    expect(await page.locator('dl.fields .status').first().textContent()).toBe('under_review');
    expect(await page.getByRole('button', { name: 'Save evidence' }).count()).toBe(0);
    const [row] = await stack.sql`select status, evidence from disputes where id = ${disputeId}`;
    expect(row).toMatchObject({
      status: 'under_review',
      evidence: { productDescription: 'Hand-thrown mug', shippingTrackingNumber: '1Z999AA10123456784' },
    });

    // Webhooks: the endpoints list, then the failing one; Resend its delivery and see it go again.
    await Promise.all([page.waitForURL(/\/console\/webhooks$/), page.getByRole('link', { name: 'Webhooks' }).click()]);
    await checkPage(page, cspViolations);
    await Promise.all([
      page.waitForURL(new RegExp(`/console/webhooks/${failing}$`)),
      page.getByRole('link', { name: failing }).click(),
    ]);
    await checkPage(page, cspViolations);
    const before = (await delivery())!;
    const attempts = page.getByRole('table', { name: `Attempts of ${failedEvent}, oldest first` });
    expect(await attempts.locator('tbody tr').count()).toBe(before.attempts);
    expect(await attempts.locator('tbody').textContent()).toContain('500');
    await Promise.all([page.waitForURL(/done=resent/), page.getByRole('button', { name: 'Resend' }).click()]);
    await checkPage(page, cspViolations);
    expect(await page.getByRole('status').textContent()).toBe(`Delivery queued again: ${failedEvent}`);
    expect((await delivery())!.redeliveries).toBe(before.redeliveries + 1);
    await waitFor(delivery, {
      until: (now) => now?.status === 'failed' && now.attempts === before.attempts + 1,
      what: 'the redelivery attempted, and failed again',
    });
    await page.reload();
    await checkPage(page, cspViolations);
    expect(await attempts.locator('tbody tr').count()).toBe(before.attempts + 1);
    const fields = await page.locator('article.delivery dl.fields').textContent();
    expect(fields).toContain(`Redeliveries${before.redeliveries + 1}`);
    await context.close();
  });
});
