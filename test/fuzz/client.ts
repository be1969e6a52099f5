import { Agent, request } from 'node:http';
import type { FuzzRequest } from './requests';

export type FuzzResponse =
  | { status: number; contentType: string; text: string; error?: undefined }
  | { error: string; status?: undefined };

/** Sends requests over a pool of keep-alive connections, bytes exactly as built (no URL normalisation). */
export function keepAliveClient(port: number, connections: number) {
  const agent = new Agent({ keepAlive: true, maxSockets: connections });

  const send = (fuzz: FuzzRequest) =>
    new Promise<FuzzResponse>((resolve) => {
      const headers: Record<string, string | number> = { ...fuzz.headers };
      if (fuzz.body) headers['content-length'] = fuzz.body.length;
      const req = request({ host: '127.0.0.1', port, path: fuzz.path, method: fuzz.method, agent, headers }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () =>
          resolve({
            status: res.statusCode ?? 0,
            contentType: String(res.headers['content-type'] ?? ''),
            text: Buffer.concat(chunks).toString('utf8'),
          }),
        );
        res.on('error', (error) => resolve({ error: `response: ${error.message}` }));
      });
      req.setTimeout(15_000, () => req.destroy(new Error('timed out')));
      req.on('error', (error) => resolve({ error: `${(error as NodeJS.ErrnoException).code ?? ''} ${error.message}` }));
      req.end(fuzz.body);
    });

  /** Sends every request, `connections` at a time; answers come back in the requests' order. */
  async function sendAll(requests: FuzzRequest[]): Promise<FuzzResponse[]> {
    const responses: FuzzResponse[] = new Array(requests.length);
    let next = 0;
    const worker = async () => {
      while (next < requests.length) {
        const index = next++;
        responses[index] = await send(requests[index] as FuzzRequest);
      }
    };
    await Promise.all(Array.from({ length: connections }, worker));
    return responses;
  }

  return { send, sendAll, close: () => agent.destroy() };
}
