import { Agent, request } from 'node:http';
import type { Socket } from 'node:net';
import { closeServer, listen } from '@pps/shared/runtime';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestStack, type TestStack } from '../harness';

/** Over a real keep-alive connection: a 413 closes the connection cleanly, and the client's next request works. */

let stack: TestStack;
let server: Awaited<ReturnType<typeof listen>>['server'];
let port: number;

beforeAll(async () => {
  stack = await createTestStack();
  ({ server, port } = await listen(stack.gateway.fetch, 0, '127.0.0.1'));
});
afterAll(async () => {
  await closeServer(server);
  await stack?.close();
});

const agent = new Agent({ keepAlive: true, maxSockets: 1 });

function send(method: string, path: string, body?: Buffer) {
  return new Promise<{
    status: number;
    headers: Record<string, unknown>;
    text: string;
    socket: Socket;
    reused: boolean;
  }>((resolve, reject) => {
    let socket: Socket | undefined;
    const req = request(
      {
        host: '127.0.0.1',
        port,
        path,
        method,
        agent,
        headers: body ? { 'content-type': 'application/json', 'content-length': body.length } : {},
      },
      (res) => {
        let text = '';
        res.on('data', (chunk) => {
          text += chunk;
        });
        res.on('end', () =>
          resolve({
            status: res.statusCode ?? 0,
            headers: res.headers,
            text,
            socket: socket as Socket,
            reused: req.reusedSocket,
          }),
        );
      },
    );
    req.on('socket', (assigned) => {
      socket = assigned;
    });
    req.on('error', reject);
    if (body) req.write(body);
    req.end();
  });
}

describe('a body over 1 MiB', () => {
  it('gets a 413 with Connection: close, and the next request on the same client succeeds', async () => {
    const huge = Buffer.from(
      JSON.stringify({ data: { type: 'accounts', attributes: { name: 'x'.repeat(2 * 1024 * 1024) } } }),
    );
    const refused = await send('POST', '/admin/accounts', huge);
    expect(refused.status).toBe(413);
    expect(refused.headers.connection).toBe('close');
    expect(JSON.parse(refused.text).errors[0].code).toBe('payload_too_large');
    const next = await send('GET', '/healthz');
    expect(next.status).toBe(200);
  });
});

describe('a body the server never reads', () => {
  it('is drained after a refusal, and the connection stays open for the next request', async () => {
    // A stranger's large body: refused before it is read. Reading `.body` to learn whether there was one used to
    // start a stream that then stalled, and the connection was cut 500 ms later (ECONNRESET for the next request).
    const large = Buffer.from(
      JSON.stringify({ data: { type: 'customers', attributes: { name: 'x'.repeat(200_000) } } }),
    );
    const refused = await send('POST', '/customers', large);
    expect(refused.status).toBe(401);
    expect(refused.headers.connection).toBe('keep-alive');
    await new Promise((resolve) => setTimeout(resolve, 800));
    expect(refused.socket.destroyed).toBe(false);
    const next = await send('GET', '/healthz');
    expect(next.status).toBe(200);
    expect(next.reused).toBe(true);
    expect(next.socket).toBe(refused.socket);
  });
});

describe('over a real socket, a JSON body without Content-Type', () => {
  it('is a 415 naming the header to send', async () => {
    const creds = await stack.createAccount('No content type');
    const body = Buffer.from(JSON.stringify({ data: { type: 'auth', attributes: { appKey: creds.appKey } } }));
    const response = await new Promise<{ status: number; text: string }>((resolve, reject) => {
      const req = request(
        {
          host: '127.0.0.1',
          port,
          path: '/auth/token',
          method: 'POST',
          headers: { 'x-api-key': creds.apiKey, 'content-length': body.length },
        },
        (res) => {
          let text = '';
          res.on('data', (chunk) => {
            text += chunk;
          });
          res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
        },
      );
      req.on('error', reject);
      req.end(body);
    });
    expect(response.status).toBe(415);
    expect(JSON.parse(response.text).errors[0]).toMatchObject({
      code: 'unsupported_media_type',
      detail: 'Send the body as JSON with Content-Type: application/json',
    });
  });
});
