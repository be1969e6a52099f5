import { createBullBoard } from '@bull-board/api';
import { BullMQAdapter } from '@bull-board/api/bullMQAdapter';
import { HonoAdapter } from '@bull-board/hono';
import { serveStatic } from '@hono/node-server/serve-static';
import type { Queue } from 'bullmq';
import { Hono, type MiddlewareHandler } from 'hono';

export const QUEUE_BOARD_PATH = '/admin/queues';

/** bull-board at /admin/queues: ops see and retry the settlement and maintenance jobs (behind the admin token). */
export function registerQueueBoard(app: Hono<never>, queues: Queue[]): void {
  const adapter = new HonoAdapter(serveStatic).setBasePath(QUEUE_BOARD_PATH);
  createBullBoard({
    queues: queues.map((queue) => new BullMQAdapter(queue)),
    serverAdapter: adapter,
    options: { uiConfig: { boardTitle: 'PPS queues' } },
  });
  const board = new Hono();
  board.use('*', withoutExternalLinks);
  board.route('/', adapter.registerPlugin());
  app.route(QUEUE_BOARD_PATH, board);
}

/** A `<link>` (stylesheet, preconnect) to another origin, with the line break after it. */
const EXTERNAL_LINK = /<link\b[^>]*\bhref="(?:https?:)?\/\/[^"]*"[^>]*>\s*/gi;

/**
 * bull-board's page links its fonts (IBM Plex) from Google Fonts: a request off the machine on every visit, which
 * fails offline, and tells Google who opens the ops dashboard. The package has no option for it, so the link is taken
 * out of the page; its CSS falls back to the system's fonts (docs/decisions.md, First-run quiet).
 */
const withoutExternalLinks: MiddlewareHandler = async (c, next) => {
  await next();
  if (!c.res.headers.get('content-type')?.startsWith('text/html')) return;
  const html = await c.res.text();
  const headers = new Headers(c.res.headers);
  headers.delete('content-length');
  c.res = new Response(html.replace(EXTERNAL_LINK, ''), { status: c.res.status, headers });
};
