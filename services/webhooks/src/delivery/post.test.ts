import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { Readable } from 'node:stream';
import { Agent } from 'undici';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { BODY_START_BYTES, post } from './post';

/** A real receiver on loopback whose answer each test sets, noting the connections it saw and how answers ended. */
let server: Server;
let base: string;
let answer: (request: IncomingMessage, response: ServerResponse) => void;
const sockets = new Set<Socket>();
let seen: { url: string; body: string }[] = [];
/** For each answer, once its connection closed: whether it was written out in full. */
let answeredInFull: boolean[] = [];

beforeAll(async () => {
  server = createServer((request, response) => {
    sockets.add(request.socket);
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      seen.push({ url: request.url ?? '', body: Buffer.concat(chunks).toString('utf8') });
      response.on('close', () => answeredInFull.push(response.writableFinished));
      answer(request, response);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

let agent: Agent | undefined;
afterEach(async () => {
  await agent?.destroy();
  agent = undefined;
  server.closeAllConnections();
  sockets.clear();
  seen = [];
  answeredInFull = [];
});

const send = (path = '/hooks', timeoutMs = 2_000) => {
  agent ??= new Agent({ keepAliveTimeout: 30_000 });
  return post(agent, `${base}${path}`, { headers: { 'content-type': 'application/json' }, body: '{"a":1}', timeoutMs });
};
/** A body written in pieces as the client takes them, so a client that stops reading leaves the rest unwritten. */
const streamed = (response: ServerResponse, status: number, bytes: number) => {
  response.writeHead(status, { 'content-type': 'text/plain' });
  let left = bytes;
  Readable.from(
    (function* () {
      for (; left > 0; left -= 65_536) yield 'x'.repeat(Math.min(65_536, left));
    })(),
  ).pipe(response);
};
/** Once `count` answers' connections have closed (each noted in `answeredInFull`), however slow the machine is. */
async function closed(count: number) {
  for (const deadline = Date.now() + 5_000; answeredInFull.length < count && Date.now() < deadline; ) {
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

describe('post', () => {
  it('POSTs the body to the path and query, over connections kept for the next requests', async () => {
    answer = (_request, response) => response.writeHead(204).end();
    expect(await send('/hooks?tenant=1')).toEqual({ statusCode: 204, retryAfter: null, bodyStart: '' });
    for (let n = 1; n < 10; n++) expect(await send('/hooks?tenant=1')).toMatchObject({ statusCode: 204 });
    expect(seen).toHaveLength(10);
    expect(seen[9]).toEqual({ url: '/hooks?tenant=1', body: '{"a":1}' });
    // undici may open a second connection for a request sent the moment the first one's answer ends.
    expect(sockets.size).toBeLessThanOrEqual(2);
  });

  it("gives an error's status, Retry-After and body", async () => {
    answer = (_request, response) => response.writeHead(503, { 'retry-after': '7' }).end('busy, é');
    expect(await send()).toEqual({ statusCode: 503, retryAfter: '7', bodyStart: 'busy, é' });
  });

  it('reads no more of a large error body than its start, and closes that connection', async () => {
    answer = (_request, response) => streamed(response, 500, 64 * 1024 * 1024);
    const answered = await send();
    expect(answered.statusCode).toBe(500);
    expect(answered.bodyStart).toBe(`${'x'.repeat(BODY_START_BYTES)}…`);
    await closed(1);
    expect(answeredInFull).toEqual([false]);
  });

  it('reads a success body to its end up to 128 KiB, and closes the connection past it', async () => {
    answer = (_request, response) => streamed(response, 200, 100 * 1024);
    expect(await send()).toEqual({ statusCode: 200, retryAfter: null, bodyStart: '' });
    answer = (_request, response) => streamed(response, 200, 64 * 1024 * 1024);
    expect(await send()).toMatchObject({ statusCode: 200 });
    await closed(2);
    expect(answeredInFull).toEqual([true, false]);
  });

  it('rejects with a TimeoutError once the time is up, and ends the request', async () => {
    answer = () => {}; // never answers
    const started = performance.now();
    await expect(send('/hooks', 200)).rejects.toMatchObject({ name: 'TimeoutError' });
    expect(performance.now() - started).toBeLessThan(2_000);
    await closed(1);
    expect(answeredInFull).toEqual([false]);
  });

  it("rejects with the network's error when nothing listens", async () => {
    const closedPort = createServer();
    await new Promise<void>((resolve) => closedPort.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(closedPort.address() as { port: number }).port}/hooks`;
    await new Promise<void>((resolve) => closedPort.close(() => resolve()));
    agent = new Agent();
    await expect(post(agent, url, { headers: {}, body: '{}', timeoutMs: 2_000 })).rejects.toMatchObject({
      code: 'ECONNREFUSED',
    });
  });
});
