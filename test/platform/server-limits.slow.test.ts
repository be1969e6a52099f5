import { spawn } from 'node:child_process';
import type { Server } from 'node:http';
import { connect, type Socket } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { loadConfig } from '@pps/shared/config';
import { closeServer, DEFAULT_SERVER_LIMITS, listen } from '@pps/shared/runtime';
import { Hono } from 'hono';
import { afterEach, describe, expect, it } from 'vitest';
import { stopProcess } from '../processes';

/**
 * The HTTP server's limits and its drain, against real servers from `listen()` on loopback ports, driven over raw
 * sockets so every byte and every close is the test's to time.
 */

type Raw = { status: number; headers: Record<string, string>; body: string };

/** A raw TCP client: writes bytes, parses HTTP/1.1 responses off the wire, and records when the server closed. */
class RawClient {
  private buffer = '';
  private wake: () => void = () => {};
  closedAt: number | null = null;
  readonly closed: Promise<number>;

  private constructor(readonly socket: Socket) {
    socket.setEncoding('latin1');
    socket.on('data', (chunk: string) => {
      this.buffer += chunk;
      this.wake();
    });
    socket.on('error', () => {});
    this.closed = new Promise((resolve) =>
      socket.once('close', () => {
        this.closedAt = Date.now();
        this.wake();
        resolve(this.closedAt);
      }),
    );
  }

  static open(port: number): Promise<RawClient> {
    return new Promise((resolve, reject) => {
      const socket = connect(port, '127.0.0.1', () => resolve(new RawClient(socket)));
      socket.once('error', reject);
    });
  }

  send(text: string) {
    this.socket.write(text);
  }

  /** The next whole response (null if the server closed first). Without Content-Length the body runs to the close. */
  async response(): Promise<Raw | null> {
    for (;;) {
      const end = this.buffer.indexOf('\r\n\r\n');
      if (end >= 0) {
        const [statusLine, ...lines] = this.buffer.slice(0, end).split('\r\n');
        const headers = Object.fromEntries(
          lines.map((line) => [
            line.slice(0, line.indexOf(':')).toLowerCase(),
            line.slice(line.indexOf(':') + 1).trim(),
          ]),
        );
        const length = headers['content-length'] === undefined ? null : Number(headers['content-length']);
        const available = this.buffer.length - end - 4;
        if ((length !== null && available >= length) || (length === null && this.closedAt !== null)) {
          const body = this.buffer.slice(end + 4, end + 4 + (length ?? available));
          this.buffer = this.buffer.slice(end + 4 + body.length);
          return { status: Number(statusLine!.split(' ')[1]), headers, body };
        }
      }
      if (this.closedAt !== null) return null;
      await new Promise<void>((resolve) => {
        this.wake = resolve;
      });
    }
  }

  destroy() {
    this.socket.destroy();
  }
}

const get = (path: string, headers: Record<string, string> = {}) =>
  `GET ${path} HTTP/1.1\r\nHost: test\r\n${Object.entries(headers)
    .map(([name, value]) => `${name}: ${value}\r\n`)
    .join('')}\r\n`;

/** A tiny app: /fast, and /slow?ms= (or until released) that tells the test when it has started. */
function slowApp() {
  const started: Array<() => void> = [];
  const releases = new Set<() => void>();
  const app = new Hono();
  app.get('/fast', (c) => c.text('fast'));
  app.get('/slow', async (c) => {
    started.shift()?.();
    const ms = c.req.query('ms');
    await new Promise<void>((resolve) => {
      releases.add(resolve);
      if (ms) setTimeout(resolve, Number(ms));
    });
    return c.text('done');
  });
  return {
    app,
    nextStart: () => new Promise<void>((resolve) => started.push(resolve)),
    releaseAll: () => {
      for (const release of releases) release();
    },
  };
}

const open: Array<{ server: Server; release?: () => void }> = [];
const clients: RawClient[] = [];

async function serve(limits: Parameters<typeof listen>[3] = {}) {
  const app = slowApp();
  const { server, port } = await listen(app.app.fetch, 0, '127.0.0.1', limits);
  open.push({ server, release: app.releaseAll });
  return { ...app, server, port };
}

/** Set from the `maxHeaderSize` option; @types/node does not declare the property. */
const maxHeaderSize = (server: Server) => (server as unknown as { maxHeaderSize: number }).maxHeaderSize;

async function client(port: number) {
  const raw = await RawClient.open(port);
  clients.push(raw);
  return raw;
}

afterEach(async () => {
  for (const raw of clients.splice(0)) raw.destroy();
  for (const { server, release } of open.splice(0)) {
    release?.();
    await closeServer(server, { timeoutMs: 100 });
  }
});

describe('server limits', () => {
  it('are the configured values on the Node server, and the configuration defaults otherwise', async () => {
    expect(DEFAULT_SERVER_LIMITS).toEqual({
      HTTP_HEADERS_TIMEOUT_MS: 10_000,
      HTTP_REQUEST_TIMEOUT_MS: 30_000,
      HTTP_KEEP_ALIVE_TIMEOUT_MS: 65_000,
      HTTP_MAX_HEADER_SIZE: 16_384,
      SHUTDOWN_TIMEOUT_MS: 25_000,
    });
    const defaults = await serve();
    expect(defaults.server.headersTimeout).toBe(10_000);
    expect(defaults.server.requestTimeout).toBe(30_000);
    expect(defaults.server.keepAliveTimeout).toBe(65_000);
    expect(maxHeaderSize(defaults.server)).toBe(16_384);
    const config = loadConfig({
      NODE_ENV: 'test',
      HTTP_HEADERS_TIMEOUT_MS: '2000',
      HTTP_REQUEST_TIMEOUT_MS: '4000',
      HTTP_KEEP_ALIVE_TIMEOUT_MS: '3000',
      HTTP_MAX_HEADER_SIZE: '8192',
    });
    const configured = await serve(config);
    expect(configured.server.headersTimeout).toBe(2000);
    expect(configured.server.requestTimeout).toBe(4000);
    expect(configured.server.keepAliveTimeout).toBe(3000);
    expect(maxHeaderSize(configured.server)).toBe(8192);
  });

  it('refuses a headers timeout longer than the request timeout by name (Node would throw at listen)', () => {
    expect(() => loadConfig({ NODE_ENV: 'test', HTTP_HEADERS_TIMEOUT_MS: '40000' })).toThrow(
      /HTTP_HEADERS_TIMEOUT_MS: must not exceed HTTP_REQUEST_TIMEOUT_MS/,
    );
  });

  it('answers 431 to request headers over HTTP_MAX_HEADER_SIZE, and 400 to what is not HTTP, as error documents, and closes; under it, 200', async () => {
    const { port } = await serve();
    const small = await client(port);
    small.send(get('/fast', { 'x-padding': 'a'.repeat(8000) }));
    expect((await small.response())?.status).toBe(200);

    const big = await client(port);
    big.send(get('/fast', { 'x-padding': 'a'.repeat(20_000) }));
    const refused = await big.response();
    expect(refused?.status).toBe(431);
    expect(refused?.headers['content-type']).toBe('application/json');
    expect(JSON.parse(refused?.body ?? '')).toMatchObject({
      errors: [{ status: '431', code: 'headers_too_large', title: 'Request Header Fields Too Large' }],
      meta: { requestId: expect.stringMatching(/^req_/) },
    });
    await big.closed;

    const garbage = await client(port);
    garbage.send('NOT HTTP\r\n\r\n');
    const malformed = await garbage.response();
    expect(malformed?.status).toBe(400);
    expect(JSON.parse(malformed?.body ?? '').errors[0].code).toBe('malformed_request');
    await garbage.closed;
  });

  it('cuts off a client that sends its headers too slowly (408) after HTTP_HEADERS_TIMEOUT_MS', async () => {
    const { port } = await serve({ HTTP_HEADERS_TIMEOUT_MS: 300, HTTP_REQUEST_TIMEOUT_MS: 1000 });
    // In time: the headers complete after 150 ms.
    const prompt = await client(port);
    prompt.send('GET /fast HTTP/1.1\r\nHost: test\r\n');
    await sleep(150);
    prompt.send('\r\n');
    expect((await prompt.response())?.status).toBe(200);

    // Slowloris: a header line every 100 ms, never the blank line that ends them.
    const slow = await client(port);
    const started = Date.now();
    slow.send('GET /fast HTTP/1.1\r\nHost: test\r\n');
    const drip = setInterval(() => slow.send('X-Drip: 1\r\n'), 100);
    try {
      const cut = await slow.response();
      expect(cut?.status).toBe(408);
      expect(JSON.parse(cut?.body ?? '').errors[0].code).toBe('request_timeout');
      const elapsed = (await slow.closed) - started;
      expect(elapsed).toBeGreaterThanOrEqual(290);
      expect(elapsed).toBeLessThan(1000); // 300 ms + the checking interval (75 ms), with room for a busy machine
    } finally {
      clearInterval(drip);
    }
  });

  it('keeps an idle keep-alive connection for HTTP_KEEP_ALIVE_TIMEOUT_MS (outliving the headers timeout), then closes it', async () => {
    const { port, server } = await serve({
      HTTP_HEADERS_TIMEOUT_MS: 300,
      HTTP_REQUEST_TIMEOUT_MS: 1000,
      HTTP_KEEP_ALIVE_TIMEOUT_MS: 1000,
    });
    expect(server.keepAliveTimeout).toBe(1000);
    const raw = await client(port);
    raw.send(get('/fast'));
    const first = await raw.response();
    expect(first?.status).toBe(200);
    expect(first?.headers['keep-alive']).toBe('timeout=1'); // what the client is told

    // Idle for longer than the headers timeout: since Node 18 an idle connection is not subject to it.
    await sleep(600);
    expect(raw.closedAt).toBeNull();
    raw.send(get('/fast'));
    expect((await raw.response())?.status).toBe(200);
    const answeredAt = Date.now();

    const idle = (await raw.closed) - answeredAt;
    expect(idle).toBeGreaterThanOrEqual(950);
    // Node closes at keepAliveTimeout plus its own 1 s buffer, so the client, told `timeout=1`, stops reusing first.
    expect(idle).toBeLessThan(2800);
  });
});

describe('graceful drain (closeServer)', () => {
  it('lets a request in flight finish with Connection: close, refuses new connections, closes idle ones, then resolves', async () => {
    const { port, server, nextStart } = await serve({ SHUTDOWN_TIMEOUT_MS: 5000 });
    const idle = await client(port);
    idle.send(get('/fast'));
    expect((await idle.response())?.headers.connection).toBe('keep-alive');

    const busy = await client(port);
    const started = nextStart();
    busy.send(get('/slow?ms=500'));
    await started;
    const slowStartedAt = Date.now();

    let resolvedAt = 0;
    const closing = closeServer(server).then((result) => {
      resolvedAt = Date.now();
      return result;
    });
    await idle.closed; // the idle keep-alive connection is closed at once
    expect(busy.closedAt).toBeNull();

    const refused = await new Promise<string>((resolve) => {
      const socket = connect(port, '127.0.0.1', () => {
        socket.destroy();
        resolve('connected');
      });
      socket.once('error', (error: NodeJS.ErrnoException) => resolve(error.code ?? 'error'));
    });
    expect(refused).toBe('ECONNREFUSED');

    const answer = await busy.response();
    expect(answer?.status).toBe(200);
    expect(answer?.body).toBe('done');
    expect(answer?.headers.connection).toBe('close');
    await busy.closed;

    expect(await closing).toEqual({ forced: 0 });
    // Not before the slow request had run its 500 ms (the client's own clock would race the server's close).
    expect(resolvedAt).toBeGreaterThanOrEqual(slowStartedAt + 450);
  });

  it('closes the connections still open at the deadline and resolves, counting the requests cut off', async () => {
    const { port, server, nextStart } = await serve({ SHUTDOWN_TIMEOUT_MS: 300 });
    const hung = await client(port);
    const started = nextStart();
    hung.send(get('/slow')); // answers only when released, never here
    await started;

    const begun = Date.now();
    const result = await closeServer(server);
    const elapsed = Date.now() - begun;
    expect(result).toEqual({ forced: 1 });
    expect(elapsed).toBeGreaterThanOrEqual(290);
    expect(elapsed).toBeLessThan(1500);
    expect(await hung.response()).toBeNull(); // cut off without an answer
  });
});

describe('SIGTERM on a real process', () => {
  it('drains: the request in flight gets its 200, and the process logs "stopped" and exits 0', async () => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'test/fixtures/drain-server.ts'], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    try {
      const lines: Array<{ msg: string; port?: number }> = [];
      let waiting: (() => void) | null = null;
      let partial = '';
      child.stdout.setEncoding('utf8');
      child.stdout.on('data', (chunk: string) => {
        partial += chunk;
        const complete = partial.split('\n');
        partial = complete.pop()!;
        for (const line of complete) if (line.trim()) lines.push(JSON.parse(line));
        waiting?.();
      });
      const line = async (msg: string) => {
        for (;;) {
          const found = lines.find((entry) => entry.msg === msg);
          if (found) return found;
          if (child.exitCode !== null) throw new Error(`exited before logging "${msg}"`);
          await new Promise<void>((resolve) => {
            waiting = resolve;
          });
        }
      };
      const exited = new Promise<number | null>((resolve) => child.once('close', (code) => resolve(code)));

      const { port } = await line('listening');
      const answer = fetch(`http://127.0.0.1:${port}/?ms=700`).then(async (response) => ({
        status: response.status,
        connection: response.headers.get('connection'),
        body: await response.text(),
      }));
      await line('request started');
      child.kill('SIGTERM');

      expect(await answer).toEqual({ status: 200, connection: 'close', body: 'done' });
      expect(await exited).toBe(0);
      const messages = lines.map((entry) => entry.msg);
      expect(messages).toEqual(expect.arrayContaining(['shutting down', 'stopped']));
      expect(messages).not.toContain('shutdown deadline reached: closing connections forcibly');
    } finally {
      await stopProcess(child, 'SIGKILL');
    }
  });
});
