import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { createLogger } from './logger';

describe('logger redaction', () => {
  it('never writes card numbers, security codes, tax ids, bank numbers, keys or tokens', () => {
    const lines: string[] = [];
    const sink = new Writable({
      write(chunk, _encoding, done) {
        lines.push(String(chunk));
        done();
      },
    });
    const logger = createLogger({ level: 'info', destination: sink });
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
});
