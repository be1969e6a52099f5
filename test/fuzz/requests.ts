import Ajv2020 from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import fc from 'fast-check';
import { generateSync } from 'json-schema-faker';

/** A path segment a URL resolves as `..` (the URL standard decodes `%2e` for that). */
const isDotSegment = (segment: string) => segment.toLowerCase().replaceAll('%2e', '.') === '..';

import type { JsonSchema, Operation, Parameter } from './operations';

/**
 * Fuzz requests for one operation of the OpenAPI document: a `Plan` drawn by fast-check (seeded, so a failure
 * reproduces), turned into bytes on the wire by `buildRequest`. Valid bodies come from the operation's schema
 * (json-schema-faker); mutations and hostile values from fast-check's arbitraries. The schema is also the oracle:
 * a request the document says is invalid (or that has no valid credentials, or names an id that is not the
 * caller's) must be refused with a 4xx and change nothing.
 */

const MAX_BODY_BYTES = 1024 * 1024;

// ——— hostile values ———

/** Percent-encodes every byte but the unreserved characters, so any string (even invalid UTF-16) can be a segment. */
export const encodeSegment = (value: string) =>
  [...Buffer.from(value, 'utf8')]
    .map((byte) => (/[A-Za-z0-9_.~-]/.test(String.fromCharCode(byte)) ? String.fromCharCode(byte) : percent(byte)))
    .join('');
const percent = (byte: number) => `%${byte.toString(16).toUpperCase().padStart(2, '0')}`;

/** Path segments and query values, already encoded for the request line (some encodings are invalid on purpose). */
const hostileSegment: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom(
    '%00',
    'pay_x%20y',
    'mer_%C3%A9',
    '%C3%28',
    '%FF%FE',
    '%ZZ',
    '%',
    '..',
    '%2e%2e',
    'a%2Fb',
    "'%20OR%201=1--",
    "1'%3BDROP%20TABLE%20payments%3B--",
    'null',
    '0',
    '-1',
    '1e309',
    'pay_',
    `mer_${'A'.repeat(26)}`,
    `pay_01${'0'.repeat(24)}`,
    '%E2%80%AE',
    '%F0%9F%92%B3',
    '%0D%0AX-Injected:%201',
    'x'.repeat(10_000),
    '%7Bid%7D',
    '*',
    '__proto__',
  ),
  fc.string({ minLength: 1, maxLength: 40 }).map(encodeSegment),
  fc.string({ unit: 'binary', minLength: 1, maxLength: 20 }).map(encodeSegment),
  fc.uint8Array({ minLength: 1, maxLength: 12 }).map((bytes) => [...bytes].map(percent).join('')),
);

const hostileQueryValue: fc.Arbitrary<string> = fc.oneof(
  hostileSegment,
  fc.constantFrom('', '-1', '1.5', '1e3', '101', 'NaN', 'Infinity', '99999999999999999999', '0x10', '%201', 'true'),
  fc.constantFrom('2026-13-45', '275760-09-14T00:00:00Z', '-271821-04-20T00:00:00Z', '2026-01-01T25:00:00Z'),
);

const deepArray = (depth: number): unknown => (depth === 0 ? 1 : [deepArray(depth - 1)]);

/** A JSON value to put where another was: wrong types, edge numbers, unstorable text, huge and deep values. */
const hostileValue: fc.Arbitrary<unknown> = fc.oneof(
  {
    weight: 6,
    arbitrary: fc.constantFrom(
      null,
      true,
      0,
      -1,
      1.5,
      -0.01,
      1e308,
      2 ** 53,
      2 ** 64,
      '',
      ' ',
      '0',
      '-1',
      '1.5',
      '1e9',
      '00050',
      '99999999999999999999999',
      'NaN',
      '٣٤',
      '\u0000',
      'a\u0000b',
      '\ud800',
      'x\udfffy',
      '<script>alert(1)</script>',
      "' OR 1=1--",
      '../../etc/passwd',
      [],
      {},
      [null],
    ),
  },
  { weight: 2, arbitrary: fc.integer() },
  { weight: 1, arbitrary: fc.double() },
  { weight: 2, arbitrary: fc.string() },
  { weight: 2, arbitrary: fc.string({ unit: 'binary' }) },
  { weight: 1, arbitrary: fc.integer({ min: 2, max: 300 }).map(deepArray) },
  { weight: 2, arbitrary: fc.anything({ maxDepth: 3 }) },
  { weight: 1, arbitrary: fc.constant('x'.repeat(100_000)) },
);

type Mutation = { op: 'replace' | 'delete' | 'add'; at: number; key: string; value: unknown };

const mutation: fc.Arbitrary<Mutation> = fc.record({
  op: fc.constantFrom('replace', 'replace', 'delete', 'add'),
  at: fc.nat(),
  key: fc.constantFrom('extra', '__proto__', 'constructor', 'a\u0000b', '\ud800', ''),
  value: hostileValue,
});

const BROKEN_JSON = [
  '{',
  '{"data":',
  '{data:1}',
  "{'data':1}",
  '[',
  'null',
  '1',
  '"x"',
  'true',
  '{"data":{}}',
  '{"data":null}',
  '{"a":1,}',
  '{"a":NaN}',
  '{"data":1e999}',
  '{"data":"\\ud800"}',
  '{"__proto__":{"admin":true}}',
  '\u0000',
];

/** The `n`th item, counting round the list (plans carry plain numbers; lists are never empty here). */
const nth = <T>(list: readonly T[], n: number): T => list[n % list.length] as T;

/** Whether a text is JSON that the schema accepts (some of the broken bodies are valid JSON, a few even valid). */
function parsesTo(text: string, validate: (value: unknown) => boolean): boolean {
  try {
    return validate(JSON.parse(text));
  } catch {
    return false;
  }
}

// ——— plans ———

export type Plan = {
  auth: 'valid' | 'none' | 'forged' | 'foreign';
  body: 'valid' | 'mutated' | 'brokenJson' | 'invalidUtf8' | 'wrongType' | 'deep' | 'oversized' | 'none' | 'junk';
  /** Fill id and number fields with real ones (the request gets past validation into business rules). */
  realValues: boolean;
  seed: number;
  mutations: Mutation[];
  pick: number;
  junk: unknown;
  contentType: string;
  pathId: 'real' | 'foreign' | 'hostile';
  hostileSegment: string;
  query: 'none' | 'valid' | 'hostile' | 'repeated' | 'unknown';
  hostileQuery: string[];
};

export const planArbitrary = (operation: Operation): fc.Arbitrary<Plan> =>
  fc.record({
    auth: fc.oneof(
      { weight: 8, arbitrary: fc.constant('valid' as const) },
      { weight: 1, arbitrary: fc.constantFrom('none' as const, 'forged' as const, 'foreign' as const) },
    ),
    body: operation.body
      ? fc.oneof(
          { weight: 30, arbitrary: fc.constant('valid' as const) },
          { weight: 40, arbitrary: fc.constant('mutated' as const) },
          { weight: 8, arbitrary: fc.constant('brokenJson' as const) },
          { weight: 5, arbitrary: fc.constant('invalidUtf8' as const) },
          { weight: 6, arbitrary: fc.constant('wrongType' as const) },
          { weight: 2, arbitrary: fc.constant('deep' as const) },
          { weight: 4, arbitrary: fc.constant('none' as const) },
          // About one request per operation: each is 1 MiB on the wire.
          { weight: 1, arbitrary: fc.constant('oversized' as const) },
        )
      : fc.constantFrom('none', 'none', 'none', 'junk', 'wrongType'),
    realValues: fc.oneof({ weight: 3, arbitrary: fc.constant(true) }, { weight: 1, arbitrary: fc.constant(false) }),
    seed: fc.integer({ min: 1, max: 2 ** 30 }),
    mutations: fc.array(mutation, { minLength: 1, maxLength: 3 }),
    pick: fc.nat(),
    junk: fc.anything({ maxDepth: 2 }),
    contentType: fc.constantFrom(
      'text/plain',
      'application/xml',
      'application/x-www-form-urlencoded',
      'multipart/form-data; boundary=x',
      'application/jsonx',
      'text/json',
    ),
    pathId: fc.constantFrom('real', 'real', 'real', 'foreign', 'hostile', 'hostile'),
    hostileSegment,
    query: fc.constantFrom('none', 'valid', 'valid', 'hostile', 'repeated', 'unknown'),
    hostileQuery: fc.array(hostileQueryValue, { minLength: 4, maxLength: 4 }),
  });

// ——— building a request ———

/** The ids and values of a prepared world: what `real` and `foreign` plans put into paths and bodies. */
export type World = {
  /** Headers of each kind of caller. */
  auth: {
    app: Record<string, string>;
    foreignApp: Record<string, string>;
    admin: string;
    /** The key of a sacrificial account: the key exchanges rotate its app key, never the main one's. */
    apiKey: string;
    foreignApiKey: string;
    /** The client secrets of a checkout session of the main account and of the other one. */
    clientSecret: string;
    foreignClientSecret: string;
  };
  /** Path template → an id the caller owns (absent: none exists) and one of another account. */
  pathIds: Record<string, { real?: string; foreign?: string }>;
  /** Field name → real values to fill in. */
  fields: Record<string, string[]>;
};

export type FuzzRequest = {
  operation: string;
  method: string;
  path: string;
  headers: Record<string, string>;
  body?: Buffer;
  /** Why the request must be refused (a 4xx) and change nothing; null when it may succeed. */
  mustReject: string | null;
  /** Card and bank numbers the request carried: none may come back in the response. */
  sensitive: string[];
  describe: string;
};

const ajv = new Ajv2020({ strict: false, allErrors: false, validateFormats: true });
addFormats(ajv);
const validators = new WeakMap<JsonSchema, (value: unknown) => boolean>();

/** The schema with the document's components beside it, so `#/components/...` references resolve. */
const rooted = (schema: JsonSchema, components: unknown) => ({ ...schema, components });

function validatorFor(schema: JsonSchema, components: unknown) {
  let validate = validators.get(schema);
  if (!validate) {
    const compiled = ajv.compile(rooted(schema, components));
    validate = (value) => compiled(value) as boolean;
    validators.set(schema, validate);
  }
  return validate;
}

const generate = (schema: JsonSchema, components: unknown, seed: number) =>
  generateSync(rooted(schema, components) as never, { seed, maxDepth: 4 }) as unknown;

/** Every place in a JSON value: [parent, key] pairs, depth first. */
function placesOf(value: unknown, out: [Record<string, unknown> | unknown[], string | number][] = []) {
  if (Array.isArray(value)) {
    value.forEach((item, index) => {
      out.push([value, index]);
      placesOf(item, out);
    });
  } else if (value !== null && typeof value === 'object') {
    for (const [key, item] of Object.entries(value)) {
      out.push([value as Record<string, unknown>, key]);
      placesOf(item, out);
    }
  }
  return out;
}

function mutate(body: unknown, mutations: Mutation[]): unknown {
  const copy = structuredClone(body);
  for (const { op, at, key, value: drawn } of mutations) {
    // A copy: fast-check hands the same constant objects to many plans, and a later mutation may write into it.
    const value = structuredClone(drawn);
    const places = placesOf(copy);
    if (places.length === 0) return value;
    const [parent, slot] = nth(places, at);
    if (op === 'replace') (parent as Record<string | number, unknown>)[slot] = value;
    else if (op === 'delete' && Array.isArray(parent)) parent.splice(slot as number, 1);
    else if (op === 'delete') delete (parent as Record<string, unknown>)[slot as string];
    else {
      const target = (parent as Record<string | number, unknown>)[slot];
      if (target !== null && typeof target === 'object' && !Array.isArray(target)) {
        Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
      } else (parent as Record<string | number, unknown>)[slot] = { [key]: value };
    }
  }
  return copy;
}

/** Puts real ids and numbers into the fields that name them, so requests reach the business rules. */
function fillReal(value: unknown, fields: World['fields'], pick: number): void {
  for (const [parent, slot] of placesOf(value)) {
    const choices = typeof slot === 'string' ? fields[slot] : undefined;
    const current = (parent as Record<string | number, unknown>)[slot];
    if (choices && (typeof current === 'string' || typeof current === 'number')) {
      (parent as Record<string | number, unknown>)[slot] = nth(choices, pick);
    }
  }
}

const SENSITIVE_KEYS = new Set(['number', 'accountNumber', 'routingNumber', 'ssn', 'ein']);

function sensitiveValues(value: unknown): string[] {
  return placesOf(value).flatMap(([parent, slot]) => {
    const item = (parent as Record<string | number, unknown>)[slot];
    return typeof slot === 'string' && SENSITIVE_KEYS.has(slot) && typeof item === 'string' && /^\d{9,}$/.test(item)
      ? [item]
      : [];
  });
}

/** A JSON body with bytes that are not UTF-8 inside its first string. */
function withInvalidUtf8(json: string): Buffer {
  const bytes = Buffer.from(json, 'utf8');
  const quote = bytes.indexOf(0x22, bytes.indexOf(0x3a));
  return quote < 0
    ? Buffer.concat([bytes, Buffer.from([0xff])])
    : Buffer.concat([bytes.subarray(0, quote + 1), Buffer.from([0xff, 0xfe, 0xc3, 0x28]), bytes.subarray(quote + 1)]);
}

/** A list (it takes `limit`) refuses any name it does not take with a 400 `unknown_parameter`. */
const isList = (operation: Operation) => operation.queryParams.some((parameter) => parameter.name === 'limit');

function queryString(operation: Operation, plan: Plan, world: World, components: unknown): string {
  const params = operation.queryParams;
  if (plan.query === 'none' || params.length === 0) return plan.query === 'unknown' ? '?__proto__=1&x=%00' : '';
  const value = (parameter: Parameter, index: number) => {
    if (plan.query !== 'valid') return nth(plan.hostileQuery, index);
    const real = world.fields[parameter.name];
    if (plan.realValues && real) return encodeSegment(nth(real, plan.pick));
    return encodeSegment(String(generate(parameter.schema, components, plan.seed + index)));
  };
  const pairs = params.map((parameter, index) => `${parameter.name}=${value(parameter, index)}`);
  if (plan.query === 'repeated') pairs.push(...pairs);
  // On a list, names that could be stored: the list's own schema must refuse them, not the NUL check.
  if (plan.query === 'unknown' && isList(operation)) pairs.push('__proto__=1', 'colour=blue');
  else if (plan.query === 'unknown') pairs.push('__proto__=1', `${encodeSegment('x\u0000')}=1`);
  return `?${pairs.join('&')}`;
}

export function buildRequest(operation: Operation, plan: Plan, world: World, components: unknown): FuzzRequest {
  const reasons: string[] = [];
  const headers: Record<string, string> = {};

  // Who is calling.
  if (operation.auth !== 'public') {
    if (plan.auth === 'none' || plan.auth === 'forged') reasons.push(`${plan.auth} credentials`);
    if (plan.auth !== 'none') {
      const forged = plan.auth === 'forged';
      if (operation.auth === 'app') {
        const app = plan.auth === 'foreign' ? world.auth.foreignApp : world.auth.app;
        Object.assign(headers, app);
        if (forged) headers.authorization = `Bearer eyJhbGciOiJIUzI1NiJ9.${plan.seed}.forged`;
      } else if (operation.auth === 'clientSecret') {
        const secret = plan.auth === 'foreign' ? world.auth.foreignClientSecret : world.auth.clientSecret;
        headers['x-client-secret'] = forged ? `cs_secret_forged${plan.seed}` : secret;
      } else if (operation.auth === 'admin') {
        if (plan.auth === 'foreign') reasons.push('app credentials on an admin route');
        headers.authorization =
          plan.auth === 'foreign'
            ? `${world.auth.app.authorization}`
            : `Bearer ${forged ? `forged-${plan.seed}` : world.auth.admin}`;
      } else {
        const apiKey = plan.auth === 'foreign' ? world.auth.foreignApiKey : world.auth.apiKey;
        headers['x-api-key'] = forged ? `pk_forged_${plan.seed}` : apiKey;
      }
    }
  }

  // Where.
  let path = operation.path;
  for (const parameter of operation.pathParams) {
    const ids = world.pathIds[operation.path] ?? {};
    let segment = plan.hostileSegment;
    if (plan.pathId === 'real' && ids.real) segment = ids.real;
    else if (plan.pathId === 'foreign' && ids.foreign) segment = ids.foreign;
    // `..` is a dot segment, and so is `%2e%2e` (a URL decodes dots before it resolves them): the URL resolves it
    // away (`/merchants/../balance` is `/balance`), to another route that may well answer; any other id not ours
    // must be refused.
    else if (!isDotSegment(segment)) reasons.push('an id that is not one of ours');
    // The operator may act on any account's resources; an app only on its own (`foreign` calls as the other one),
    // and a client secret only on its own checkout session.
    const owner = segment === ids.real ? 'valid' : segment === ids.foreign ? 'foreign' : null;
    const owned = operation.auth === 'app' || operation.auth === 'clientSecret';
    if (owned && owner && owner !== plan.auth) reasons.push('an id of another account');
    path = path.replace(`{${parameter.name}}`, segment);
  }
  path += queryString(operation, plan, world, components);
  if (plan.query === 'unknown' && isList(operation)) reasons.push('a query parameter the list does not take');

  // What.
  let body: Buffer | undefined;
  let sent: unknown;
  const bodyMethod = ['POST', 'PUT', 'PATCH'].includes(operation.method);
  if (operation.body) {
    const schema = operation.body.schema;
    const valid = generate(schema, components, plan.seed);
    if (plan.realValues) fillReal(valid, world.fields, plan.pick);
    switch (plan.body) {
      case 'valid':
      case 'mutated': {
        sent = plan.body === 'valid' ? valid : mutate(valid, plan.mutations);
        const json = JSON.stringify(sent) ?? 'null';
        body = Buffer.from(json, 'utf8');
        if (!validatorFor(schema, components)(JSON.parse(json))) reasons.push('a body the schema refuses');
        break;
      }
      case 'brokenJson': {
        const text = nth(BROKEN_JSON, plan.pick);
        body = Buffer.from(text, 'utf8');
        if (!parsesTo(text, validatorFor(schema, components))) reasons.push('a body that is not the JSON asked for');
        break;
      }
      case 'invalidUtf8':
        sent = valid;
        body = withInvalidUtf8(JSON.stringify(valid));
        break;
      case 'wrongType':
        sent = valid;
        body = Buffer.from(JSON.stringify(valid), 'utf8');
        headers['content-type'] = plan.contentType;
        reasons.push('a body declared as another type');
        break;
      case 'deep':
        body = Buffer.from(`${'['.repeat(5000)}${']'.repeat(5000)}`, 'utf8');
        reasons.push('a 5,000-deep document');
        break;
      case 'oversized':
        body = Buffer.from(JSON.stringify({ ...(valid as object), pad: 'x'.repeat(MAX_BODY_BYTES) }), 'utf8');
        reasons.push('a body over 1 MiB');
        break;
      case 'none':
        if (operation.body.required) reasons.push('no body where one is required');
        break;
    }
  } else if (plan.body === 'junk' || (plan.body === 'wrongType' && bodyMethod)) {
    sent = plan.junk;
    body = Buffer.from(JSON.stringify(plan.junk) ?? 'null', 'utf8');
    if (plan.body === 'wrongType') {
      headers['content-type'] = plan.contentType;
      reasons.push('a body declared as another type');
    }
  }
  if (body) headers['content-type'] ??= 'application/json';

  return {
    operation: operation.id,
    method: operation.method,
    path,
    headers,
    body,
    mustReject: reasons[0] ?? null,
    sensitive: sensitiveValues(sent),
    describe: `${operation.method} ${path.length > 200 ? `${path.slice(0, 200)}…` : path} auth=${plan.auth} body=${plan.body} ${
      body ? body.subarray(0, 300).toString('utf8') : ''
    }`,
  };
}
