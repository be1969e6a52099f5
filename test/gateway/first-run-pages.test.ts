import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestStack, type TestStack } from '../harness';

/**
 * The pages a browser opens on the gateway, `/docs` and `/admin/queues`, load offline: every file they reference
 * (scripts, stylesheets, icons, and what the stylesheets reference in turn) is on this server and answers 200, and
 * `/favicon.ico`, which every browser asks for, is there too. Judged from the HTML and CSS as served: a browser test
 * would add the requests the scripts make as they run, which is more than this checks.
 */

let stack: TestStack;
const ORIGIN = 'http://localhost';

beforeAll(async () => {
  // The settlement workers give the gateway its queues, so it mounts the queue board.
  stack = await createTestStack({ settlement: true });
  // Connected before the tests run: a stack closed while BullMQ still connects leaves its connections' rejections
  // unhandled, and these tests are over in moments.
  await Promise.all(Object.values(stack.settlement!.queues).map((queue) => queue.waitUntilReady()));
});
afterAll(async () => {
  await stack?.close();
});

const basic = () => `Basic ${Buffer.from(`ops:${stack.config.ADMIN_TOKEN}`).toString('base64')}`;
const get = (url: URL) => stack.gateway.request(url.pathname + url.search, { headers: { authorization: basic() } });

/** The URLs an HTML page or a stylesheet references, as written. */
function references(text: string, kind: 'html' | 'css'): string[] {
  if (kind === 'css') {
    return [...text.matchAll(/url\(\s*['"]?([^'")]+)['"]?\s*\)|@import\s+['"]([^'"]+)['"]/g)]
      .map((match) => match[1] ?? match[2] ?? '')
      .filter((ref) => !ref.startsWith('data:') && !ref.startsWith('#'));
  }
  const tags = [...text.matchAll(/<(?:link|script|img|iframe|source)\b[^>]*>/gi)].map((match) => match[0]);
  return tags.flatMap((tag) => [...tag.matchAll(/\b(?:href|src)="([^"]+)"/g)].map((match) => match[1] ?? ''));
}

/** Fetches a page and everything it references, recursively through stylesheets; returns each URL and its status. */
async function load(path: string) {
  const page = new URL(path, ORIGIN);
  const seen = new Map<string, number>();
  const external: string[] = [];
  const visit = async (url: URL, kind: 'html' | 'css' | 'other') => {
    if (seen.has(url.href)) return;
    const response = await get(url);
    seen.set(url.href, response.status);
    if (kind === 'other' || response.status !== 200) return;
    const text = await response.text();
    const base = kind === 'html' ? new URL(/<base\s+href="([^"]+)"/i.exec(text)?.[1] ?? url.href, url) : url;
    for (const ref of references(text, kind)) {
      const target = new URL(ref, base);
      if (target.origin !== ORIGIN) {
        external.push(ref);
        continue;
      }
      await visit(target, /\.css(\?|$)/.test(target.pathname) ? 'css' : 'other');
    }
  };
  await visit(page, 'html');
  return { statuses: Object.fromEntries(seen), external };
}

describe('first run, offline', () => {
  it('/docs references only files of this server, and each answers 200', async () => {
    const { statuses, external } = await load('/docs');
    expect(external).toEqual([]);
    expect(Object.keys(statuses)).toEqual(
      expect.arrayContaining([`${ORIGIN}/favicon.ico`, `${ORIGIN}/docs/assets/swagger-ui-bundle.js`]),
    );
    for (const [url, status] of Object.entries(statuses)) expect(status, url).toBe(200);
  });

  it("/admin/queues (bull-board) references only files of this server, its fonts' stylesheet taken out", async () => {
    const { statuses, external } = await load('/admin/queues');
    expect(external).toEqual([]);
    expect(Object.keys(statuses).length).toBeGreaterThan(3); // the page, its stylesheet, scripts and icons
    for (const [url, status] of Object.entries(statuses)) expect(status, url).toBe(200);
    const page = await (await get(new URL('/admin/queues', ORIGIN))).text();
    expect(page).toContain('PPS queues');
    expect(page).not.toContain('fonts.googleapis.com');
  });

  it('/favicon.ico is an icon', async () => {
    const response = await stack.gateway.request('/favicon.ico');
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('image/x-icon');
    const bytes = Buffer.from(await response.arrayBuffer());
    expect([...bytes.subarray(0, 6)]).toEqual([0, 0, 1, 0, 1, 0]); // ICO header: an icon, one image
    expect(bytes.readUInt32LE(6 + 8)).toBe(bytes.length - 22); // the image's size, after the directory
  });
});
