import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Credentials, createTestStack, type TestStack } from '../../harness';
import { consoleClient } from './console-client';

/**
 * The account's API version in the console (Developers, API version): shown with what a move to the newest would
 * change, moved by its developer's form (CSRF token needed), and the API answers in the new pin from the next
 * request on.
 */
let stack: TestStack;
let acme: Credentials;

beforeAll(async () => {
  stack = await createTestStack();
  acme = await stack.createAccount('Acme versions');
});
afterAll(() => stack?.close());

const pinOf = async () =>
  (await stack.sql`select api_version from accounts where id = ${acme.accountId}`)[0]?.api_version as string;
const answeredIn = async () => (await stack.call('GET', '/payments?limit=1', { as: acme })).headers.get('pps-version');

async function signedIn() {
  const browser = consoleClient(stack);
  await browser.signIn(acme.apiKey);
  return browser;
}

describe('the API version on the Developers page', () => {
  it('shows the pin, the newest marked, and nothing to change when on the newest', async () => {
    const page = await (await signedIn()).get('/console/developers');
    expect(page.status).toBe(200);
    expect(page.text).toContain('<h2 id="api-version">API version</h2>');
    expect(page.text).toContain('answered in <strong>2026-11-29</strong>, the newest version.');
    expect(page.text).toMatch(/<option value="2026-11-29" selected="">2026-11-29 \(newest\)<\/option>/);
    expect(page.text).not.toContain('Moving to 2026-11-29 changes');
  });

  it('needs the CSRF token: without it 403 and the pin unchanged', async () => {
    const browser = await signedIn();
    const forged = await browser.post('/console/developers/api-version', { apiVersion: '2026-11-21' });
    expect(forged.status).toBe(403);
    expect(await pinOf()).toBe('2026-11-29');
  });

  it('refuses a version that is none, as text, and changes nothing', async () => {
    const browser = await signedIn();
    const page = await browser.get('/console/developers');
    const refused = await browser.post('/console/developers/api-version', {
      _csrf: browser.hidden(page.text, '_csrf'),
      apiVersion: '<script>alert(1)</script>',
    });
    expect(refused.status).toBe(422);
    expect(refused.text).toContain('role="alert"');
    expect(refused.text).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
    expect(refused.text).not.toContain('<script>alert(1)');
    expect(await pinOf()).toBe('2026-11-29');
  });

  it('moves the pin both ways; the API answers in it from the next request on', async () => {
    const browser = await signedIn();
    const move = async (apiVersion: string) => {
      const page = await browser.get('/console/developers');
      return browser.post('/console/developers/api-version', { _csrf: browser.hidden(page.text, '_csrf'), apiVersion });
    };
    const back = await move('2026-11-21');
    expect(back.status).toBe(303);
    expect(back.headers.get('location')).toBe('/console/developers?done=version');
    expect(await pinOf()).toBe('2026-11-21');
    expect(await answeredIn()).toBe('2026-11-21');
    const page = await browser.get('/console/developers?done=version');
    expect(page.text).toContain('The API version is now 2026-11-21.');
    expect(page.text).toContain('Moving to 2026-11-29 changes:');
    expect(page.text).toContain('instead of by <code>offset</code>');

    expect((await move('2026-11-29')).status).toBe(303);
    expect(await pinOf()).toBe('2026-11-29');
    expect(await answeredIn()).toBe('2026-11-29');
  });
});
