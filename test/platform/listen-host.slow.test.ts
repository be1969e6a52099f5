import { randomBytes } from 'node:crypto';
import { connect } from 'node:net';
import { networkInterfaces } from 'node:os';
import { afterAll, describe, expect, it } from 'vitest';
import { logLines, startNpmStart } from '../start-process';

/**
 * Where `npm start` listens (HOST): loopback only with the development defaults, so its well-known admin token, the
 * NACHA files behind it and /metrics are not on the LAN; every interface when HOST=0.0.0.0 says so. Judged from
 * outside, by connecting to this machine's own non-loopback address; on a machine without one, by the address the
 * process logs it listens on. The default start is also quiet: no warning but those it means to print, and one
 * `module` a log line.
 */

const stops: (() => Promise<void>)[] = [];
afterAll(async () => {
  await Promise.all(stops.map((stop) => stop()));
});

/** This machine's first IPv4 address that is not loopback, if it has one. */
const lanAddress = Object.values(networkInterfaces())
  .flat()
  .find((address) => address && address.family === 'IPv4' && !address.internal)?.address;

/** 'open' if a TCP connection to host:port is accepted, else the error's code. */
function probe(host: string, port: number): Promise<string> {
  return new Promise((resolve) => {
    const socket = connect({ host, port });
    socket.setTimeout(3000, () => {
      socket.destroy();
      resolve('timeout');
    });
    socket.once('connect', () => {
      socket.destroy();
      resolve('open');
    });
    socket.once('error', (error: NodeJS.ErrnoException) => resolve(error.code ?? error.message));
  });
}

const listeningHost = (output: string) =>
  logLines(output).find((line) => line.msg === 'payment processing service listening')?.host;

/**
 * The warnings and errors of a start, but the one about the machine's PostgreSQL (the test cluster runs with
 * autovacuum off; a user's PostgreSQL has it on). The development defaults are one info line, not warnings.
 */
const unexpectedWarnings = (output: string) =>
  logLines(output)
    .filter((line) => ['warn', 'error', 'fatal'].includes(String(line.level)))
    .map((line) => String(line.msg))
    .filter((msg) => !/PostgreSQL autovacuum is off/.test(msg));

/** The raw log lines that name `key` more than once: pino writes a key bound twice twice (JSON.parse keeps the last). */
const keyTwice = (output: string, key: string) =>
  output.split('\n').filter((line) => line.startsWith('{') && line.split(`"${key}":`).length > 2);

describe('npm start: HOST', () => {
  it('listens on 127.0.0.1 only by default (API and demo shop), prints the development admin token, warns of nothing else', async () => {
    const started = await startNpmStart();
    stops.push(started.stop);
    // The relay's first rounds and polls, the workers' first jobs: all run within a second or two of the start.
    await new Promise((resolve) => setTimeout(resolve, 2000));
    expect(unexpectedWarnings(started.output()), started.output()).toEqual([]);
    expect(keyTwice(started.output(), 'module')).toEqual([]);

    expect((await fetch(`http://127.0.0.1:${started.port}/healthz`)).status).toBe(200);
    expect((await fetch(`http://127.0.0.1:${started.demoPort}/demo/checkout`)).status).toBe(200);
    expect(listeningHost(started.output())).toBe('127.0.0.1');
    if (lanAddress) {
      expect(await probe(lanAddress, started.port)).toBe('ECONNREFUSED');
      expect(await probe(lanAddress, started.demoPort)).toBe('ECONNREFUSED');
    }
    expect(started.output()).toContain(
      'Admin API: Authorization: Bearer dev-admin-token (development default; set ADMIN_TOKEN)',
    );
  }, 60_000);

  it('honours HOST=0.0.0.0, and never prints an admin token that was set', async () => {
    const adminToken = randomBytes(24).toString('hex');
    const started = await startNpmStart({ env: { HOST: '0.0.0.0', ADMIN_TOKEN: adminToken } });
    stops.push(started.stop);

    expect(listeningHost(started.output())).toBe('0.0.0.0');
    if (lanAddress) {
      expect(await probe(lanAddress, started.port)).toBe('open');
      expect(await probe(lanAddress, started.demoPort)).toBe('open');
      expect((await fetch(`http://${lanAddress}:${started.port}/healthz`)).status).toBe(200);
    }
    expect((await fetch(`http://127.0.0.1:${started.port}/healthz`)).status).toBe(200);
    expect(started.output()).toContain(
      'Admin API: Authorization: Bearer $ADMIN_TOKEN (the one you set; never printed)',
    );
    expect(started.output()).not.toContain(adminToken);
    // The token works, so it is the one in use.
    const ach = await fetch(`http://127.0.0.1:${started.port}/admin/ach-files`, {
      headers: { authorization: `Bearer ${adminToken}` },
    });
    expect(ach.status).toBe(200);
  }, 60_000);
});
