import { readFile, writeFile } from 'node:fs/promises';
import { allRoutes } from '@pps/shared/contract';
import { API_VERSIONS } from '@pps/shared/versions';
import { describe, expect, it } from 'vitest';
import { createTestStack } from '../harness';
import { normaliser } from './normalise';
import { type Exchange, tour } from './tour';

/**
 * The golden suite: the tour (`tour.ts`: every operation of the API) recorded in each supported version, ids, times
 * and secrets normalised, against the recording committed beside it (`<version>.json`). Any difference fails: a
 * change meant for a new version shows in that version's file only. Record again after an intended change with
 * `GOLDEN_UPDATE=1 npx vitest run test/golden`, and read the diff before committing it; `GOLDEN_DEBUG=1` prints each
 * exchange as it is made.
 */
const UPDATE = process.env.GOLDEN_UPDATE === '1';

const routes = allRoutes.map((route) => ({
  operationId: route.operationId as string,
  method: route.method.toUpperCase(),
  pattern: new RegExp(`^${route.path.replace(/\{[^}]+\}/g, '[^/]+')}$`),
}));
const operationOf = (method: string, path: string) =>
  routes.find((route) => route.method === method && route.pattern.test(path.split('?')[0] as string))?.operationId;

async function recorded(version: string) {
  const stack = await createTestStack({ requestLog: true });
  try {
    const { value } = normaliser();
    return (await tour(stack, version)).map((exchange: Exchange) => ({
      operation: operationOf(exchange.request.method, exchange.request.path) ?? 'unknown',
      ...(value(exchange) as Exchange),
    }));
  } finally {
    await stack.close();
  }
}

describe.each(API_VERSIONS)('the golden tour in %s', (version) => {
  it('calls every operation, and answers exactly as recorded', async () => {
    const exchanges = await recorded(version);
    const called = new Set(exchanges.map((exchange) => exchange.operation));
    expect(routes.map((route) => route.operationId).filter((id) => !called.has(id))).toEqual([]);
    const file = new URL(`./${version}.json`, import.meta.url);
    const text = `${JSON.stringify(exchanges, null, 1)}\n`;
    if (UPDATE) await writeFile(file, text);
    const golden = JSON.parse(await readFile(file, 'utf8').catch(() => '[]')) as unknown[];
    expect(exchanges.length, 'exchanges recorded').toBe(golden.length);
    exchanges.forEach((exchange, index) => {
      expect(exchange, `exchange ${index + 1}: ${exchange.request.method} ${exchange.request.path}`).toEqual(
        golden[index],
      );
    });
  }, 60_000);
});
