import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { closeServer, listen } from '@pps/shared/runtime';
import { type Browser, chromium, type Page } from 'playwright-core';
import { expect } from 'vitest';
import type { TestStack } from '../../harness';

/** The console's browser tests' checks of each page they visit: axe-core, no script of a user string, the CSP. */

const AXE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

/** axe-core's serious and critical violations of the page as it is now (evaluated, so the page's CSP allows it). */
export async function accessibilityProblems(page: Page) {
  await page.evaluate(AXE);
  const violations = await page.evaluate(async () => {
    type Result = { id: string; impact: string; nodes: { target: string[] }[] };
    const axe = (window as unknown as { axe: { run: () => Promise<{ violations: Result[]; passes: Result[] }> } }).axe;
    const result = await axe.run();
    // A run that checked nothing would pass anything: each page passes many rules (labels, landmarks, contrast).
    if (result.passes.length < 10) throw new Error(`axe checked too little: ${result.passes.length} rules passed`);
    return result.violations;
  });
  return violations
    .filter((violation) => violation.impact === 'serious' || violation.impact === 'critical')
    .map((violation) => `${violation.id}: ${violation.nodes.map((node) => node.target.join(' ')).join(', ')}`);
}

/** The page after each step: no accessibility problem, no script of a user string ran, nothing refused by the CSP. */
export async function checkPage(page: Page, violations: string[]) {
  expect(await accessibilityProblems(page), page.url()).toEqual([]);
  expect(await page.evaluate(() => (window as unknown as { __xss?: number }).__xss)).toBeUndefined();
  expect(violations, 'Content-Security-Policy violations').toEqual([]);
}

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/** Debian's chromium, as the browser tests drive it (root needs `--no-sandbox`; nothing is fetched from outside). */
export const launchChromium = () =>
  chromium.launch({
    executablePath: CHROMIUM,
    args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking'],
  });

/** The stack's gateway on a free loopback port: the origin the browser opens, and how to stop serving it. */
export async function serveGateway(stack: TestStack): Promise<{ origin: string; close: () => Promise<void> }> {
  const { server, port } = await listen(stack.gateway.fetch, 0, '127.0.0.1');
  return { origin: `http://127.0.0.1:${port}`, close: async () => void (await closeServer(server)) };
}

/** A page in a context of its own, and the Content-Security-Policy violations its console reports (for `checkPage`). */
export async function watchedPage(browser: Browser, options: { acceptDownloads?: boolean } = {}) {
  const context = await browser.newContext(options);
  const page = await context.newPage();
  const cspViolations: string[] = [];
  page.on('console', (message) => {
    if (/Content Security Policy/i.test(message.text())) cspViolations.push(message.text());
  });
  return { context, page, cspViolations };
}
