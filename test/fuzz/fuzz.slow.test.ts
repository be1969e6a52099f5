import { closeServer, listen } from '@pps/shared/runtime';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMerchant } from '../fixtures/merchants';
import { cards, createCardToken, createPayment, expiryIn, tokenv3Body } from '../fixtures/payments';
import { type Credentials, createTestStack, type TestStack } from '../harness';
import { type FuzzResponse, keepAliveClient } from './client';
import { type OpenApiDocument, type Operation, operationsOf } from './operations';
import { buildRequest, type FuzzRequest, planArbitrary, type World } from './requests';

/**
 * The fuzz suite: reads the OpenAPI document the gateway serves and, for every operation, sends generated
 * requests (valid bodies from the schemas, mutations of them, broken bodies, hostile ids and query strings, with
 * and without valid credentials) over keep-alive connections. Reproduce a failure with the seed it prints:
 * `FUZZ_SEED=<seed> npx vitest run test/fuzz/fuzz.slow.test.ts`; `FUZZ_RUNS` sets the requests per operation.
 */

const SEED = Number(process.env.FUZZ_SEED ?? 20_261_123);
const RUNS_PER_OPERATION = Number(process.env.FUZZ_RUNS ?? 520);
const CONNECTIONS = Number(process.env.FUZZ_CONNECTIONS ?? 8);

/** What must never appear in a body: the service's insides. */
const LEAKS: [RegExp, string][] = [
  [/\bat\s+(?:async\s+)?[\w$.<>[\]]+\s+\((?:file:|node:|\/)/, 'a stack frame'],
  [/node:internal|node_modules|\/work\/|\/app\/|\.[cm]?[tj]s:\d+/, 'a file path'],
  [/\b(?:select|insert|update|delete)\s[^"]{0,80}\b(?:from|into|set|where)\s/i, 'SQL'],
  [/syntax error at|violates|duplicate key|relation "|PostgresError|ECONNREFUSED|RangeError|TypeError/i, 'an error'],
  [/internal_/, 'an internal code'],
];

let stack: TestStack;
let server: Awaited<ReturnType<typeof listen>>['server'];
let client: ReturnType<typeof keepAliveClient>;
let document: OpenApiDocument;
let world: World;

beforeAll(async () => {
  // Limits off: the fuzzer is one client hammering with bad credentials on purpose.
  stack = await createTestStack({ env: { RATE_LIMIT_RPS: '0', AUTH_FAILURE_LIMIT: '0' } });
  const listening = await listen(stack.gateway.fetch, 0, '127.0.0.1');
  server = listening.server;
  client = keepAliveClient(listening.port, CONNECTIONS);
  const served = await client.send({ method: 'GET', path: '/openapi.json', headers: {} } as FuzzRequest);
  if (served.error !== undefined) throw new Error(served.error);
  document = JSON.parse(served.text);
  world = await prepareWorld();
});
afterAll(async () => {
  client?.close();
  if (server) await closeServer(server);
  await stack?.close();
});

/** The resources the fuzzer aims at: one of each kind on the main account, and on another account. */
async function prepareWorld(): Promise<World> {
  const [main, other, spare] = await Promise.all([
    stack.createAccount('Fuzz'),
    stack.createAccount('Fuzz other'),
    stack.createAccount('Fuzz spare'),
  ]);
  const resources = async (as: Credentials) => {
    const [merchant, spareMerchant, token] = await Promise.all([
      createMerchant(stack, as),
      createMerchant(stack, as),
      createCardToken(stack, as),
    ]);
    const created = async (path: string, type: string, attributes: Record<string, unknown>) =>
      (await stack.call('POST', path, { as, body: { data: { type, attributes } } })).body.data.id as string;
    const customer = await created('/customers', 'customers', { name: 'Fuzz Customer' });
    const webhook = await created('/webhooks', 'webhooks', {
      url: 'https://receiver.example.com/hooks',
      events: ['*'],
    });
    const payment = (await createPayment(stack, as, tokenv3Body({ merchantId: merchant, tokenId: token }))).body.data
      .id;
    const event = (await stack.call('GET', '/events?limit=1', { as })).body.data[0].id as string;
    const session = (
      await stack.call('POST', '/checkout/sessions', {
        as,
        body: { data: { type: 'checkoutSessions', attributes: { allowedOrigins: ['https://shop.example.com'] } } },
      })
    ).body.data;
    const checkoutSession = session.id as string;
    const clientSecret = session.attributes.clientSecret as string;
    return { merchant, spareMerchant, token, customer, webhook, payment, event, checkoutSession, clientSecret };
  };
  const [mine, theirs] = await Promise.all([resources(main), resources(other)]);
  const byPrefix: [string, keyof typeof mine][] = [
    ['/payments', 'payment'],
    ['/merchants', 'merchant'],
    ['/admin/merchants', 'spareMerchant'],
    ['/tokens', 'token'],
    ['/customers', 'customer'],
    ['/webhooks', 'webhook'],
    ['/events', 'event'],
    ['/checkout/sessions', 'checkoutSession'],
  ];
  const pathIds: World['pathIds'] = {};
  for (const operation of operationsOf(document)) {
    if (operation.pathParams.length === 0) continue;
    const kind = byPrefix.find(([prefix]) => operation.path.startsWith(`${prefix}/`))?.[1];
    // The operator's account route disables accounts: it only ever aims at the spare one.
    if (operation.path.startsWith('/admin/accounts/')) pathIds[operation.path] = { real: spare.accountId };
    else pathIds[operation.path] = kind ? { real: mine[kind], foreign: theirs[kind] } : {};
  }
  return {
    auth: {
      app: main.headers,
      foreignApp: other.headers,
      admin: stack.config.ADMIN_TOKEN,
      apiKey: spare.apiKey,
      foreignApiKey: other.apiKey,
      clientSecret: mine.clientSecret,
      foreignClientSecret: theirs.clientSecret,
    },
    pathIds,
    fields: {
      merchantId: [mine.merchant, mine.spareMerchant],
      tokenId: [mine.token],
      customerId: [mine.customer],
      parentPaymentId: [mine.payment],
      resourceId: [mine.payment],
      id: [mine.merchant],
      appId: [spare.appId],
      appKey: [spare.appKey],
      number: [cards.visa, cards.mastercard, cards.doNotHonor],
      expiry: [expiryIn(2)],
      amount: ['1000', '50', '250'],
      url: ['https://receiver.example.com/hooks'],
      routingNumber: ['021000021'],
      accountNumber: ['000123456789', '9876543'],
    },
  };
}

/** Row counts of every table, to prove that refused requests wrote nothing. */
async function rowCounts(): Promise<Record<string, number>> {
  const tables = await stack.sql<{ name: string }[]>`
    select table_name as name from information_schema.tables
    where table_schema = 'public' and table_type = 'BASE TABLE' order by table_name`;
  const union = tables
    .map(({ name }) => `select '${name}' as name, count(*)::int as rows from "${name}"`)
    .join(' union all ');
  const rows = await stack.sql.unsafe<{ name: string; rows: number }[]>(union);
  return Object.fromEntries(rows.map(({ name, rows: count }) => [name, count]));
}

/** What is wrong with one answer, or null. */
function problemOf(request: FuzzRequest, response: FuzzResponse): string | null {
  if (response.error !== undefined) return `socket error: ${response.error}`;
  const { status, text, contentType } = response;
  if (status >= 500) return `${status}: ${text.slice(0, 300)}`;
  for (const [pattern, what] of LEAKS) if (pattern.test(text)) return `${what} in the body: ${text.slice(0, 300)}`;
  for (const secret of request.sensitive) if (text.includes(secret)) return 'a card or bank number came back';
  if (request.mustReject && (status < 400 || status >= 500))
    return `${status} for ${request.mustReject}: ${text.slice(0, 200)}`;
  if (status < 400) return null;
  if (!/json/.test(contentType)) return `error ${status} as ${contentType}`;
  let body: { errors?: { code?: unknown; status?: unknown }[] };
  try {
    body = JSON.parse(text);
  } catch {
    return `error ${status} that is not JSON: ${text.slice(0, 200)}`;
  }
  const errors = body.errors;
  if (!Array.isArray(errors) || errors.length === 0) return `error ${status} without an errors array`;
  for (const error of errors) {
    if (typeof error.code !== 'string' || error.code === '') return `an error without a code: ${text.slice(0, 200)}`;
    if (error.status !== String(status)) return `an error whose status ${String(error.status)} is not ${status}`;
  }
  return null;
}

type Finding = { operation: string; request: string; problem: string };

async function run(requests: FuzzRequest[]) {
  const responses = await client.sendAll(requests);
  const findings: Finding[] = [];
  const statuses: Record<string, number> = {};
  responses.forEach((response, index) => {
    const request = requests[index] as FuzzRequest;
    const key = response.error === undefined ? String(response.status) : 'socket error';
    statuses[key] = (statuses[key] ?? 0) + 1;
    const problem = problemOf(request, response);
    if (problem) findings.push({ operation: request.operation, request: request.describe, problem });
  });
  return { findings, statuses };
}

describe('the fuzz suite', () => {
  it(`survives ${RUNS_PER_OPERATION} generated requests per operation (seed ${SEED})`, async () => {
    const operations: Operation[] = operationsOf(document);
    expect(operations.length).toBeGreaterThanOrEqual(40);
    const requests = operations.flatMap((operation, index) =>
      fc
        .sample(planArbitrary(operation), { seed: SEED + index, numRuns: RUNS_PER_OPERATION })
        .map((plan) => buildRequest(operation, plan, world, document.components)),
    );
    // First what must be refused, and every read: none of them may change a row.
    const harmless = requests.filter((request) => request.mustReject || request.method === 'GET');
    const rest = requests.filter((request) => !(request.mustReject || request.method === 'GET'));
    const before = await rowCounts();
    const refused = await run(harmless);
    const after = await rowCounts();
    const changed = Object.keys(after).filter((table) => after[table] !== before[table]);
    const accepted = await run(rest);

    const findings = [...refused.findings, ...accepted.findings];
    const statuses: Record<string, number> = { ...refused.statuses };
    for (const [status, count] of Object.entries(accepted.statuses)) statuses[status] = (statuses[status] ?? 0) + count;
    console.log(
      `fuzz seed ${SEED}: ${requests.length} requests over ${operations.length} operations ` +
        `(${harmless.length} refused or reads, ${rest.length} others); statuses ${JSON.stringify(statuses)}`,
    );
    const shown = findings
      .slice(0, Number(process.env.FUZZ_SHOW ?? 15))
      .map((finding) => `${finding.problem}\n    ${finding.request}`);
    expect(
      { findings: findings.length, tablesChangedByRefusedRequests: changed },
      `seed ${SEED}: ${findings.length} findings\n${shown.join('\n')}`,
    ).toEqual({ findings: 0, tablesChangedByRefusedRequests: [] });
    if (!process.env.FUZZ_RUNS) expect(requests.length).toBeGreaterThanOrEqual(20_000);
    // A fixed amount of work (over 20,000 requests): 35 s on a quiet two-core machine, past 120 s on a loaded one.
  }, 300_000);
});
