import { Writable } from 'node:stream';
import { DrizzleQueryError } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { createLogger, moduleLogger, redactSecrets } from './logger';

/** A logger whose lines are kept, to read what it wrote. */
function capturedLogger() {
  const lines: string[] = [];
  const sink = new Writable({
    write(chunk, _encoding, done) {
      lines.push(String(chunk));
      done();
    },
  });
  return { logger: createLogger({ level: 'info', destination: sink }), lines };
}

describe('logger redaction', () => {
  it('never writes card numbers, security codes, tax ids, bank numbers, keys or tokens', () => {
    const { logger, lines } = capturedLogger();
    logger.info(
      {
        apiKey: 'sk_test_SECRET1',
        body: {
          data: {
            attributes: {
              card: { number: '4111111111111111', code: '123' },
              personalInfo: { socialSecurity: '123456789' },
              businessInfo: { ein: '987654321' },
              bankInfo: { accountNumber: '000123456789', routingNumber: '021000021' },
              appKey: 'ak_SECRET2',
            },
          },
        },
        headers: { authorization: 'Bearer eyJSECRET3', 'x-api-key': 'sk_test_SECRET4' },
      },
      'request',
    );
    const output = lines.join('');
    for (const secret of [
      'SECRET1',
      '4111111111111111',
      '123456789',
      '987654321',
      '000123456789',
      '021000021',
      'SECRET2',
      'SECRET3',
      'SECRET4',
    ]) {
      expect(output).not.toContain(secret);
    }
    expect(output).toContain('[redacted]');
  });

  it('redacts at any depth, whatever the case of the key, inside arrays and on errors', () => {
    const deep = {
      a: { b: { c: { d: { e: { f: { Authorization: 'Bearer SECRET5', items: [{ ssn: 'SECRET6' }] } } } } } },
    };
    const error = Object.assign(new Error('boom'), { appToken: 'SECRET7', code: 'E1' });
    const redacted = redactSecrets({ deep, err: error, card: { number: '4111111111111111', brand: 'visa' } }) as {
      deep: typeof deep;
      err: Error & { appToken: string; code: string };
      card: { number: string; brand: string };
    };
    expect(JSON.stringify(redacted)).not.toMatch(/SECRET|4111111111111111/);
    expect(redacted.card).toEqual({ number: '[redacted]', brand: 'visa' });
    // The error stays an error (pino's serializer keeps its message and stack); only the secret changed.
    expect(redacted.err).toBeInstanceOf(Error);
    expect(redacted.err.message).toBe('boom');
    expect(redacted.err.code).toBe('E1');
    expect(redacted.err.appToken).toBe('[redacted]');
    // The originals are untouched.
    expect(error.appToken).toBe('SECRET7');
  });

  it('returns a line with no secret as it is (no copy: the hot path pays one look-up per key)', () => {
    const line = { requestId: 'req_1', method: 'POST', path: '/payments', status: 201, ms: 4, nested: { code: 'E1' } };
    expect(redactSecrets(line)).toBe(line);
  });

  it("keeps a failed query's statement in the log but not its parameters (drizzle puts them in the message)", () => {
    const { logger, lines } = capturedLogger();
    const cause = Object.assign(new Error('duplicate key value violates unique constraint'), { code: '23505' });
    const failed = new DrizzleQueryError('insert into customers (email) values ($1)', ['jane@example.com'], cause);
    logger.error({ err: failed }, 'unhandled error');
    const output = lines.join('');
    expect(output).not.toContain('jane@example.com');
    const logged = JSON.parse(output).err;
    // pino adds the cause's message after the error's own.
    expect(logged.message).toMatch(
      /^Failed query: insert into customers \(email\) values \(\$1\)\n\(parameters redacted\)/,
    );
    expect(logged.stack).toContain('(parameters redacted)');
    expect(logged.params).toBe('[redacted]');
    expect(logged.message).toContain('duplicate key value violates unique constraint');
  });
});

describe('module loggers', () => {
  // pino writes bindings as text, so a key bound twice is there twice; JSON.parse would keep the last and hide it.
  const moduleKeys = (line: string) => line.match(/"module":/g)?.length ?? 0;

  it("write one module, the most specific, when one is made from another module's logger", () => {
    const { logger, lines } = capturedLogger();
    const pipeline = moduleLogger(logger, 'webhooks');
    const relay = moduleLogger(pipeline, 'outbox-relay');
    relay.warn('round failed');
    pipeline.info('started');
    relay.child({ job: 'x' }).info('job');
    expect(lines).toHaveLength(3);
    for (const line of lines) expect(moduleKeys(line), line).toBe(1);
    expect(lines.map((line) => JSON.parse(line).module)).toEqual(['outbox-relay', 'webhooks', 'outbox-relay']);
    expect(JSON.parse(lines[2]!).job).toBe('x');
  });

  it('keep what the logger they were made from carries besides its module', () => {
    const { logger, lines } = capturedLogger();
    const withWorker = logger.child({ worker: 2 });
    moduleLogger(moduleLogger(withWorker, 'settlement'), 'payout-run').info('ran');
    expect(moduleKeys(lines[0]!)).toBe(1);
    expect(JSON.parse(lines[0]!)).toMatchObject({ worker: 2, module: 'payout-run', msg: 'ran' });
  });
});
