import { createBullBoard } from '@bull-board/api';
import { BullMQAdapter } from '@bull-board/api/bullMQAdapter';
import { HonoAdapter } from '@bull-board/hono';
import { serveStatic } from '@hono/node-server/serve-static';
import type { Queue } from 'bullmq';
import type { Hono } from 'hono';

export const QUEUE_BOARD_PATH = '/admin/queues';

/** bull-board at /admin/queues: ops see and retry the settlement and maintenance jobs (behind the admin token). */
export function registerQueueBoard(app: Hono<never>, queues: Queue[]): void {
  const adapter = new HonoAdapter(serveStatic).setBasePath(QUEUE_BOARD_PATH);
  createBullBoard({
    queues: queues.map((queue) => new BullMQAdapter(queue)),
    serverAdapter: adapter,
    options: { uiConfig: { boardTitle: 'PPS queues' } },
  });
  app.route(QUEUE_BOARD_PATH, adapter.registerPlugin());
}
