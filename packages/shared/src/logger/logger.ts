import pino, { type Logger } from 'pino';

/**
 * Keys whose values never reach a log line, at any depth. Sensitive fields are named the same everywhere in the
 * API, so this covers request bodies, errors and our own objects.
 */
export const SENSITIVE_KEYS: readonly string[] = [
  'cardNumber',
  'pan',
  'cvv',
  'cvc',
  'securityCode',
  'socialSecurity',
  'ssn',
  'ein',
  'taxId',
  'birthDate',
  'accountNumber',
  'routingNumber',
  'apiKey',
  'appKey',
  'appToken',
  'token',
  'secret',
  'clientSecret',
  'password',
  'authorization',
  'x-api-key',
  'x-pps-signature',
  // postgres.js errors carry the statement's parameters.
  'parameters',
];

const SENSITIVE = new Set(SENSITIVE_KEYS.map((key) => key.toLowerCase()));
/** `number` and `code` are generic words (an error code, a transaction code): redacted only inside a card. */
export const CARD_FIELDS: ReadonlySet<string> = new Set(['number', 'code']);
export const CENSOR = '[redacted]';

/**
 * Whether a field's value is a secret by its name (compared without case; `parentKey` lower-cased): what the log
 * redacts, and what the request log redacts of a body before it looks at the values' shapes, so the two never drift.
 */
export const isSecretField = (key: string, parentKey: string): boolean => {
  const lower = key.toLowerCase();
  return SENSITIVE.has(lower) || (parentKey === 'card' && CARD_FIELDS.has(lower));
};
/** Deeper than any object the code logs; past it a value is dropped rather than walked unchecked. */
const MAX_DEPTH = 10;

/** A copy of `value` that keeps its prototype (an Error stays an Error for pino's serializer). */
function shallowCopy<T extends object>(value: T): T {
  if (Array.isArray(value)) return [...value] as T;
  const prototype = Object.getPrototypeOf(value);
  if (prototype === Object.prototype || prototype === null) return { ...value };
  return Object.create(prototype, Object.getOwnPropertyDescriptors(value));
}

/**
 * `value` with every sensitive key's value replaced, at any depth, keys compared without case. Nothing is copied
 * unless something is replaced, so a line with no secret (nearly all of them: ids, statuses, timings) costs one
 * look-up per key: the hot path's access line is not slowed by redaction (pino's path redaction cost about 6 % of
 * a payment's CPU: docs/decisions.md, "Performance of the payment path").
 */
export function redactSecrets(value: unknown, parentKey = '', depth = 0): unknown {
  if (value === null || typeof value !== 'object') return value;
  if (depth > MAX_DEPTH) return '[too deep]';
  if (ArrayBuffer.isView(value)) return value;
  if (value instanceof Error && value.message.includes(QUERY_PARAMETERS)) return withoutParameters(value, depth);
  let copy: Record<string, unknown> | undefined;
  const record = value as Record<string, unknown>;
  for (const key in record) {
    if (!Object.hasOwn(record, key)) continue;
    const item = record[key];
    const redacted = isSecretField(key, parentKey) ? CENSOR : redactSecrets(item, key.toLowerCase(), depth + 1);
    if (redacted === item) continue;
    copy ??= shallowCopy(record);
    copy[key] = redacted;
  }
  return copy ?? value;
}

/**
 * drizzle's failed-query error says the statement's parameters in its message (`Failed query: …\nparams: …`), and
 * so in its stack: values a key cannot flag (an email, a name, a hash). The message and stack keep the statement;
 * the parameters go.
 */
const QUERY_PARAMETERS = '\nparams: ';

function withoutParameters(error: Error, depth: number): unknown {
  const cut = (text: string | undefined) => {
    if (text === undefined) return text;
    const at = text.indexOf(QUERY_PARAMETERS);
    if (at < 0) return text;
    // The stack goes on with its frames after the message's last line.
    const frames = text.indexOf('\n    at ', at);
    return `${text.slice(0, at)}\n(parameters redacted)${frames < 0 ? '' : text.slice(frames)}`;
  };
  const copy = shallowCopy(error);
  Object.defineProperty(copy, 'message', { value: cut(error.message), enumerable: false, configurable: true });
  Object.defineProperty(copy, 'stack', { value: cut(error.stack), enumerable: false, configurable: true });
  if ('params' in copy) (copy as { params: unknown }).params = CENSOR;
  // The cause (a postgres.js error) is walked like any value; the copy no longer matches, so this ends.
  return redactSecrets(copy, '', depth + 1);
}

export type { Logger };

export function createLogger(
  options: { level?: string; name?: string; destination?: pino.DestinationStream } = {},
): Logger {
  return pino(
    {
      name: options.name ?? 'pps',
      level: options.level ?? 'info',
      base: undefined,
      timestamp: pino.stdTimeFunctions.isoTime,
      formatters: {
        level: (label) => ({ level: label }),
        // Every logged object passes here (child bindings are the code's own ids).
        log: (object) => redactSecrets(object) as Record<string, unknown>,
      },
    },
    options.destination ?? pino.destination(1),
  );
}

/** Each module's logger, and the logger it was made from. */
const madeFrom = new WeakMap<Logger, Logger>();

/**
 * The logger of one module: `log` with `module` bound. pino writes a child's bindings after its parent's, so a
 * module's logger made as a child of another module's wrote `module` twice on every line (the relay's, under the
 * webhooks pipeline's); given a module's logger, this makes the new one from the logger that one came from, so a line
 * says the most specific module, once. Anything else a line should carry (a request, a job) is `log.child`.
 */
export function moduleLogger(log: Logger, module: string): Logger {
  const base = madeFrom.get(log) ?? log;
  const child = base.child({ module });
  madeFrom.set(child, base);
  return child;
}
