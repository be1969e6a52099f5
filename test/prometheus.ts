import { request } from 'node:http';

/**
 * A GET on a connection of its own (`agent: false`, so `Connection: close`): under node:cluster each new connection
 * may reach another worker, which is what the cluster metrics tests need; fetch would reuse one keep-alive socket.
 */
export function getFresh(url: string): Promise<{ status: number; contentType: string; text: string }> {
  return new Promise((resolve, reject) => {
    const outgoing = request(url, { agent: false }, (response) => {
      let text = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => {
        text += chunk;
      });
      response.on('end', () =>
        resolve({ status: response.statusCode ?? 0, contentType: response.headers['content-type'] ?? '', text }),
      );
      response.on('error', reject);
    });
    outgoing.on('error', reject);
    outgoing.end();
  });
}

type Sample = { labels: Record<string, string>; value: number };

/** The samples of `name` in a Prometheus text exposition (`name{a="b"} 1`), with their labels. */
export function samples(text: string, name: string): Sample[] {
  return text.split('\n').flatMap((line) => {
    const match = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!match || match[1] !== name) return [];
    const labels = Object.fromEntries(
      [...(match[2] ?? '').matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)].map((label) => [label[1], label[2]]),
    );
    return [{ labels, value: Number(match[3]) }];
  });
}

/** The sum of `name`'s samples whose labels include `labels` (all of them by default). */
export const total = (text: string, name: string, labels: Record<string, string> = {}) =>
  samples(text, name)
    .filter((sample) => Object.entries(labels).every(([key, value]) => sample.labels[key] === value))
    .reduce((sum, sample) => sum + sample.value, 0);
