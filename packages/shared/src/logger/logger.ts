import pino, { type Logger } from 'pino';

/**
 * Paths whose values never reach a log line. Sensitive fields are named the same everywhere in the
 * API, so listing them at a few depths covers request bodies, errors and our own objects.
 */
const SENSITIVE_KEYS = [
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
  'password',
  'authorization',
  'x-api-key',
  'x-pps-signature',
  // postgres.js errors carry the statement's parameters.
  'parameters',
];

const atDepths = (key: string) => {
  const k = /^[A-Za-z_$][\w$.]*$/.test(key) ? key : `["${key}"]`;
  const dot = k.startsWith('[') ? '' : '.';
  return [k, `*${dot}${k}`, `*.*${dot}${k}`, `*.*.*${dot}${k}`, `*.*.*.*${dot}${k}`];
};

// `number` and `code` are generic words (an error code, a transaction code): redacted only inside a card.
const redactPaths = [...SENSITIVE_KEYS, 'card.number', 'card.code'].flatMap(atDepths);

export type { Logger };

export function createLogger(
  options: { level?: string; name?: string; destination?: pino.DestinationStream } = {},
): Logger {
  return pino(
    {
      name: options.name ?? 'pps',
      level: options.level ?? 'info',
      redact: { paths: redactPaths, censor: '[redacted]' },
      base: undefined,
      timestamp: pino.stdTimeFunctions.isoTime,
      formatters: { level: (label) => ({ level: label }) },
    },
    options.destination ?? pino.destination(1),
  );
}
