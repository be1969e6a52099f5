import { describe, expect, it } from 'vitest';
import {
  emailProblem,
  ipAddressProblem,
  normalizeEmail,
  phoneDigits,
  phoneProblem,
  timestampProblem,
  urlProblem,
} from './contact';

describe('phones', () => {
  it.each([
    ['4155550100', '4155550100'],
    ['(415) 555-0100', '4155550100'],
    ['415.555.0100', '4155550100'],
    ['415 555 0100', '4155550100'],
    ['+1 415 555 0100', '4155550100'],
    ['1-415-555-0100', '4155550100'],
  ])('reads %s as %s', (value, digits) => {
    expect(phoneDigits(value)).toBe(digits);
    expect(phoneProblem(value)).toBeUndefined();
  });

  it.each(['415555010', '41555501000', '+44 20 7946 0958', '415-555-01OO', 'ext 4155550100', ''])(
    'refuses %s',
    (value) => {
      expect(phoneProblem(value)).toBeDefined();
    },
  );
});

describe('emails', () => {
  it('takes ordinary addresses and refuses malformed ones', () => {
    for (const email of ['jane@example.com', 'jane.doe+shop@mail.example.co.uk', 'J@EXAMPLE.COM']) {
      expect(emailProblem(email)).toBeUndefined();
    }
    for (const email of ['jane', 'jane@', '@example.com', 'jane@example', 'ja ne@example.com', 'a@b@c.com', '']) {
      expect(emailProblem(email)).toBeDefined();
    }
  });

  it('compares case-insensitively', () => {
    expect(normalizeEmail(' Jane@Example.COM ')).toBe('jane@example.com');
  });
});

describe('urls, IP addresses and timestamps', () => {
  it('takes http(s) URLs only', () => {
    expect(urlProblem('https://acme.example.com')).toBeUndefined();
    expect(urlProblem('http://acme.example.com/shop?x=1')).toBeUndefined();
    for (const url of ['ftp://acme.example.com', 'acme.example.com', 'javascript:alert(1)', 'https://localhost']) {
      expect(urlProblem(url)).toBeDefined();
    }
  });

  it('takes IPv4 and IPv6 addresses', () => {
    for (const ip of ['203.0.113.7', '2001:db8::1']) expect(ipAddressProblem(ip)).toBeUndefined();
    for (const ip of ['203.0.113', '999.1.1.1', 'localhost', '']) expect(ipAddressProblem(ip)).toBeDefined();
  });

  it('takes ISO 8601 date-times with a zone', () => {
    for (const ts of ['2026-11-01T10:05:00Z', '2026-11-01T10:05:00.123+01:00', '2026-11-01T10:05Z']) {
      expect(timestampProblem(ts)).toBeUndefined();
    }
    for (const ts of ['2026-11-01', '2026-11-01T10:05:00', 'yesterday', '2026-13-01T10:05:00Z']) {
      expect(timestampProblem(ts)).toBeDefined();
    }
  });
});
