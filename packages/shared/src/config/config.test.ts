import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig, rolePorts } from './config';

describe('config', () => {
  it('has working development defaults and names each default secret in one note', () => {
    const config = loadConfig({});
    expect(config.PORT).toBe(8080);
    expect(config.TOKEN_SIGNING_KEYS[0]!.id).toBe('k1');
    expect(config.DATA_ENCRYPTION_KEYS[0]!.secret.length).toBe(32);
    expect(config.warnings.join('\n')).toMatch(/ADMIN_TOKEN/);
  });

  it('refuses default secrets in production, naming them', () => {
    expect(() => loadConfig({ NODE_ENV: 'production' })).toThrow(/ADMIN_TOKEN.*INTERNAL_SECRET/);
  });

  it('names every bad variable', () => {
    try {
      loadConfig({ PORT: 'eighty', DATABASE_URL: 'not a url', TOKEN_SIGNING_KEYS: 'short' });
      expect.unreachable();
    } catch (error) {
      expect(error).toBeInstanceOf(ConfigError);
      expect((error as Error).message).toMatch(/PORT/);
      expect((error as Error).message).toMatch(/DATABASE_URL/);
      expect((error as Error).message).toMatch(/TOKEN_SIGNING_KEYS/);
    }
  });

  it('refuses events kept for less time than idempotency keys (a key replays a payment from its first event)', () => {
    expect(() => loadConfig({ EVENT_RETENTION_DAYS: '5', IDEMPOTENCY_TTL_DAYS: '7' })).toThrow(
      /EVENT_RETENTION_DAYS: must not be less than IDEMPOTENCY_TTL_DAYS/,
    );
    expect(loadConfig({ EVENT_RETENTION_DAYS: '7', IDEMPOTENCY_TTL_DAYS: '7' }).EVENT_RETENTION_DAYS).toBe(7);
  });

  it('parses key rings with rotation order', () => {
    const config = loadConfig({ TOKEN_SIGNING_KEYS: `new:${'n'.repeat(32)},old:${'o'.repeat(32)}` });
    expect(config.TOKEN_SIGNING_KEYS.map((key) => key.id)).toEqual(['new', 'old']);
  });
});

describe('the ports of the services run apart', () => {
  it("are distinct by default, and none is the demo shop's", () => {
    const config = loadConfig({});
    const ports = rolePorts(config);
    expect(ports).toEqual({ gateway: 8080, payments: 8082, merchants: 8083, settlement: 9464, webhooks: 9465 });
    const all = [...Object.values(ports), config.DEMO_PORT];
    expect(new Set(all).size).toBe(all.length);
  });

  it('take each role its own variable, and METRICS_PORT overrides the role of the process it is given to', () => {
    const ports = rolePorts(loadConfig({ SETTLEMENT_METRICS_PORT: '19464', WEBHOOKS_METRICS_PORT: '19465' }));
    expect([ports.settlement, ports.webhooks]).toEqual([19464, 19465]);
    const overridden = rolePorts(loadConfig({ METRICS_PORT: '0' }));
    expect([overridden.settlement, overridden.webhooks]).toEqual([0, 0]);
  });
});

describe('PUBLIC_BASE_URL', () => {
  it('follows PORT unless it is set', () => {
    expect(loadConfig({}).PUBLIC_BASE_URL).toBe('http://localhost:8080');
    expect(loadConfig({ PORT: '9090' }).PUBLIC_BASE_URL).toBe('http://localhost:9090');
    expect(loadConfig({ PORT: '9090', PUBLIC_BASE_URL: 'https://api.example.com/' }).PUBLIC_BASE_URL).toBe(
      'https://api.example.com',
    );
  });
});

describe('HOST', () => {
  const productionSecrets = {
    ADMIN_TOKEN: 'a'.repeat(32),
    INTERNAL_SECRET: 'i'.repeat(32),
    TOKEN_SIGNING_KEYS: `k1:${'t'.repeat(32)}`,
    DATA_ENCRYPTION_KEYS: `d1:${Buffer.alloc(32, 1).toString('base64')}`,
    BLIND_INDEX_KEY: 'b'.repeat(32),
  };

  it('is loopback in development and test, every interface in production, unless it is set', () => {
    expect(loadConfig({}).HOST).toBe('127.0.0.1');
    expect(loadConfig({ NODE_ENV: 'test' }).HOST).toBe('127.0.0.1');
    expect(loadConfig({ NODE_ENV: 'production', ...productionSecrets }).HOST).toBe('0.0.0.0');
    expect(loadConfig({ HOST: '0.0.0.0' }).HOST).toBe('0.0.0.0');
    expect(loadConfig({ NODE_ENV: 'production', HOST: '10.0.0.5', ...productionSecrets }).HOST).toBe('10.0.0.5');
  });

  it('refuses an empty value', () => {
    expect(() => loadConfig({ HOST: ' ' })).toThrow(/HOST/);
  });

  it('RATE_LIMIT_RPS: off in development (npm start, on loopback), 1000 in test and production, unless set', () => {
    expect(loadConfig({}).RATE_LIMIT_RPS).toBe(0);
    expect(loadConfig({ NODE_ENV: 'test' }).RATE_LIMIT_RPS).toBe(1000);
    expect(loadConfig({ NODE_ENV: 'production', ...productionSecrets }).RATE_LIMIT_RPS).toBe(1000);
    expect(loadConfig({ RATE_LIMIT_RPS: '50' }).RATE_LIMIT_RPS).toBe(50);
    expect(loadConfig({ NODE_ENV: 'production', RATE_LIMIT_RPS: '0', ...productionSecrets }).RATE_LIMIT_RPS).toBe(0);
  });

  it('PAYMENT_ADMISSION_LIMIT: 128 in development (npm start), 48 in test and production, unless set', () => {
    expect(loadConfig({}).PAYMENT_ADMISSION_LIMIT).toBe(128);
    expect(loadConfig({ NODE_ENV: 'test' }).PAYMENT_ADMISSION_LIMIT).toBe(48);
    expect(loadConfig({ NODE_ENV: 'production', ...productionSecrets }).PAYMENT_ADMISSION_LIMIT).toBe(48);
    expect(loadConfig({ PAYMENT_ADMISSION_LIMIT: '32' }).PAYMENT_ADMISSION_LIMIT).toBe(32);
    expect(() => loadConfig({ PAYMENT_ADMISSION_LIMIT: '0' })).toThrow(/PAYMENT_ADMISSION_LIMIT/);
  });
});
